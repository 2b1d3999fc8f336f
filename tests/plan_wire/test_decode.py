"""``decode_untrusted`` (05 §9.1, 01 §3.6, 01 §5 rule 7): order of checks and every decode rejection."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.reach.attribution import error_rules
from reference.errors import Serialization, UnsupportedPlanSchema
from reference.plan import MAX_EXECUTION_PLAN_WIRE_BYTES
from reference.plan.decode import DECODE_CONTEXT, UnvalidatedExecutionPlan, decode_untrusted, round_trip_difference
from reference.versions import PlanSchemaVersion

from .helpers import (
    built,
    dump_with_duplicate_key,
    encode,
    objects,
    put,
    raises_kind,
    rehash_plan_json,
    show,
    wire_value,
)

SER = "serialization"
UNSUPPORTED = "unsupported_plan_schema"
NAMES = ("plan_fixture_0", "sequential_scratch", "graph_state_chain", "graph_alias", "padded_dense_weights")


def _decode_kind(data: bytes) -> str:
    return raises_kind_any(lambda: decode_untrusted(data))


def raises_kind_any(fn: Any) -> str:
    try:
        fn()
    except (Serialization, UnsupportedPlanSchema) as exc:
        return exc.kind
    raise AssertionError("expected a decode rejection")


# --------------------------------------------------------------------------- acceptance


@pytest.mark.parametrize("name", NAMES)
def test_a_built_wire_decodes_to_its_own_payload(name: str) -> None:
    plan = built(name)
    unvalidated = decode_untrusted(plan.to_json())
    assert isinstance(unvalidated, UnvalidatedExecutionPlan)
    assert unvalidated.schema() == PlanSchemaVersion(8, 1)
    assert unvalidated.plan_hash == plan.plan_hash
    assert unvalidated.payload == plan.payload
    assert unvalidated.payload_wire() == json.loads(plan.to_json())["payload"]
    assert unvalidated == decode_untrusted(plan.to_json())


def test_decoding_checks_neither_the_hash_nor_the_plan_id() -> None:
    value = wire_value("plan_fixture_0")
    value["plan_hash"] = "0" * 64
    value["payload"]["plan_id"] = "plan/sha256/" + "1" * 64
    unvalidated = decode_untrusted(encode(value))
    assert unvalidated.plan_hash.value == "0" * 64
    assert unvalidated.payload.plan_id.value == "plan/sha256/" + "1" * 64


def test_key_order_and_whitespace_do_not_matter() -> None:
    value = wire_value("sequential_scratch")

    def reverse(item: Any) -> Any:
        if isinstance(item, dict):
            return {k: reverse(item[k]) for k in reversed(list(item))}
        if isinstance(item, list):
            return [reverse(v) for v in item]
        return item

    data = json.dumps(reverse(value), indent=2).encode()
    assert decode_untrusted(data) == decode_untrusted(built("sequential_scratch").to_json())


# --------------------------------------------------------------------------- step 1: size


def test_the_size_limit_is_inclusive_and_checked_before_parsing() -> None:
    wire = built("plan_fixture_0").to_json()
    at_limit = wire + b" " * (MAX_EXECUTION_PLAN_WIRE_BYTES - len(wire))
    assert len(at_limit) == 16 * 1024 * 1024
    assert decode_untrusted(at_limit).plan_hash == built("plan_fixture_0").plan_hash
    over = at_limit + b" "
    assert len(over) == 16_777_217
    error = raises_kind(SER, lambda: decode_untrusted(over))
    assert isinstance(error, Serialization) and error.context == DECODE_CONTEXT
    assert "16777217" in error.message_text
    # Not parsed: an oversized non-JSON blob or an oversized other-schema wire is still a size rejection.
    raises_kind(SER, lambda: decode_untrusted(b"\xff" * 16_777_217))
    value = wire_value("plan_fixture_0")
    value["payload"]["schema"] = {"major": 3, "minor": 0}
    other = encode(value)
    raises_kind(SER, lambda: decode_untrusted(other + b" " * (16_777_217 - len(other))))


# --------------------------------------------------------------------------- step 2: strict JSON and header


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[]",
        b"null",
        b'"payload"',
        b"{}",
        b'{"payload": null}',
        b'{"payload": []}',
        b'{"payload": {}}',
        b'{"payload": {"schema": null}}',
        b'{"payload": {"schema": {}}}',
        b'{"payload": {"schema": {"major": 8}}}',
        b'{"payload": {"schema": {"minor": 1}}}',
        b'{"payload": {"schema": {"major": "8", "minor": 1}}}',
        b'{"payload": {"schema": {"major": 8.0, "minor": 1}}}',
        b'{"payload": {"schema": {"major": 8, "minor": true}}}',
        b'{"payload": {"schema": {"major": -1, "minor": 1}}}',
        b'{"payload": {"schema": {"major": 65536, "minor": 1}}}',
        b'{"payload": {"schema": [8, 1]}}',
        b'{"payload": {"schema": {"major": 8, "minor": 1}}, "payload": {"schema": {"major": 8, "minor": 1}}}',
        b'{"payload": {"schema": {"major": 8, "minor": 1}, "schema": {"major": 8, "minor": 1}}}',
        b'\xef\xbb\xbf{"payload": {"schema": {"major": 8, "minor": 1}}}',
        b'{"payload": {"schema": {"major": 8, "minor": 1}}} x',
        b'{"payload": {"schema": {"major": 8, "minor": 1}}',
        b'{"payload": {"schema": {"major": 8, "minor": 1}}}\xff',
    ],
)
def test_header_failures_are_serialization(data: bytes) -> None:
    error = raises_kind(SER, lambda: decode_untrusted(data))
    assert isinstance(error, Serialization) and error.context == DECODE_CONTEXT


def test_a_well_formed_header_with_nothing_else_fails_only_at_the_typed_parse() -> None:
    raises_kind(SER, lambda: decode_untrusted(b'{"payload": {"schema": {"major": 8, "minor": 1}}}'))
    error = raises_kind(UNSUPPORTED, lambda: decode_untrusted(b'{"payload": {"schema": {"major": 8, "minor": 2}}}'))
    assert isinstance(error, UnsupportedPlanSchema)
    assert (error.actual_major, error.actual_minor) == (8, 2)


def test_duplicate_keys_anywhere_are_rejected_before_the_schema_check() -> None:
    """D-05PW-1: strict JSON rejects duplicate keys everywhere (serde would keep the last below the header)."""
    value = wire_value("plan_fixture_0")
    value["payload"]["schema"] = {"major": 3, "minor": 0}
    deep = ("payload", "memory", "static_allocations", 0, "storage")
    raises_kind(SER, lambda: decode_untrusted(dump_with_duplicate_key(value, deep)))


@pytest.mark.parametrize("name", ["plan_fixture_0", "graph_alias"])
def test_duplicate_keys_at_every_depth_are_serialization(name: str) -> None:
    value = wire_value(name)
    for path, obj in objects(value):
        if not obj:
            continue
        assert _decode_kind(dump_with_duplicate_key(value, path)) == SER, show(path)


# --------------------------------------------------------------------------- step 3: schema precedes nested checks


@pytest.mark.parametrize(
    ("major", "minor"),
    [(9, 1), (7, 1), (8, 0), (8, 2), (3, 0), (1, 0), (4, 0), (5, 0), (0, 0), (65535, 65535)],
)
@pytest.mark.parametrize("rehash", [False, True])
def test_other_schemas_are_unsupported_with_the_wire_numbers(major: int, minor: int, rehash: bool) -> None:
    value = wire_value("plan_fixture_0")
    value["payload"]["schema"] = {"major": major, "minor": minor}
    if rehash:
        rehash_plan_json(value)
    error = raises_kind(UNSUPPORTED, lambda: decode_untrusted(encode(value)))
    assert error.to_dict() | {"message": ""} == {
        "kind": UNSUPPORTED,
        "expected_major": 8,
        "expected_minor": 1,
        "actual_major": major,
        "actual_minor": minor,
        "message": "",
    }


def test_the_schema_check_precedes_every_nested_validation() -> None:
    """A 3.0 wire with a stripped weight binding, unknown keys and a bad hash still reports the schema."""
    value = wire_value("plan_fixture_0")
    value["payload"]["schema"] = {"major": 3, "minor": 0, "patch": 7}
    weights = next(v for v in value["payload"]["nodes"][0]["values"] if v["usage"] == "weights")
    del weights["weight"]
    value["payload"]["memory"]["forged"] = True
    value["payload"]["nodes"][0]["unknown"] = 1
    value["plan_hash"] = "NOT A HASH"
    error = raises_kind(UNSUPPORTED, lambda: decode_untrusted(encode(value)))
    assert isinstance(error, UnsupportedPlanSchema) and (error.actual_major, error.actual_minor) == (3, 0)


def test_unknown_schema_keys_are_ignored_by_the_header_but_rejected_by_the_typed_parse() -> None:
    """D-05PW-2."""
    value = wire_value("plan_fixture_0")
    value["payload"]["schema"]["patch"] = 0
    raises_kind(SER, lambda: decode_untrusted(encode(value)))


# --------------------------------------------------------------------------- step 4/5: typed parse and round trip


STRUCT_NAMES = ("plan_fixture_0", "sequential_scratch", "graph_alias", "derived_components_weights")
_MAPS = ("attributes", "component_sources")


@pytest.mark.parametrize("name", STRUCT_NAMES)
def test_an_unknown_field_at_any_depth_is_serialization(name: str) -> None:
    """Payload, node, memory, pool, descriptor, allocation, alias, effect, ... (every JSON object of the wire)."""
    value = wire_value(name)
    for path, obj in list(objects(value)):
        if path and path[-1] in _MAPS:
            continue  # maps keyed by ids, not structs: a new entry is a semantic change (forgery table)
        obj["x_forged_field"] = 0
        assert _decode_kind(encode(value)) == SER, show(path)
        del obj["x_forged_field"]
    assert decode_untrusted(encode(value)).payload == built(name).payload


@pytest.mark.parametrize("name", STRUCT_NAMES)
def test_a_missing_field_at_any_depth_is_serialization(name: str) -> None:
    """Every key of every object deleted in turn (including explicit ``null`` options) -> Serialization."""
    value = wire_value(name)
    for path, obj in list(objects(value)):
        if path and path[-1] in _MAPS:
            continue  # maps, not structs: a deleted entry is a semantic change (checked by the forgery table)
        for key in list(obj):
            if path == ("payload",) and key == "schema":
                continue  # the header check: covered above
            saved = obj.pop(key)
            assert _decode_kind(encode(value)) == SER, f"{show(path)}.{key}"
            obj[key] = saved
    assert decode_untrusted(encode(value)).payload == built(name).payload


def test_omitted_null_options_are_rejected() -> None:
    value = wire_value("plan_fixture_0")
    node = value["payload"]["nodes"][0]
    for key in ("binding_resource", "requested_provider", "reusable_execution"):
        forged = copy.deepcopy(value)
        if key == "requested_provider":
            del forged["payload"]["nodes"][0]["selection"][key]
        elif key == "reusable_execution":
            del forged["payload"]["memory"][key]
        else:
            del forged["payload"]["nodes"][0][key]
        rehash_plan_json(forged)
        raises_kind(SER, lambda forged=forged: decode_untrusted(encode(forged)))
    assert node["binding_resource"] is None


def test_explicit_defaults_that_are_normally_skipped_are_rejected() -> None:
    value = wire_value("plan_fixture_0")
    growth = copy.deepcopy(value)
    growth["payload"]["memory"]["dynamic_pools"][0]["checkpoint_growth_ceiling_bytes"] = 0
    rehash_plan_json(growth)
    raises_kind(SER, lambda: decode_untrusted(encode(growth)))
    capacity = copy.deepcopy(value)
    capacity["payload"]["memory"]["checkpoint_capacity"] = None
    rehash_plan_json(capacity)
    raises_kind(SER, lambda: decode_untrusted(encode(capacity)))


@pytest.mark.parametrize(
    "spelling",
    [384, "0384", "+384", " 384", "384 ", "3.84e2", "", "-1", "340282366920938463463374607431768211456"],
)
def test_non_canonical_u128_spellings_are_rejected(spelling: Any) -> None:
    value = wire_value("plan_fixture_0")
    assert value["payload"]["memory"]["theoretical_ceiling_bytes"] == "384"
    value["payload"]["memory"]["theoretical_ceiling_bytes"] = spelling
    rehash_plan_json(value)
    raises_kind(SER, lambda: decode_untrusted(encode(value)))


@pytest.mark.parametrize(
    "path",
    [
        ("payload", "maximum_scheduled_tokens"),
        ("payload", "memory", "static_bytes"),
        ("payload", "nodes", 0, "provider_resources", "value_alignment_bytes"),
        ("payload", "memory", "static_allocations", 0, "alignment_bytes"),
        ("payload", "policy_version", "major"),
    ],
)
def test_integral_floats_are_not_integers(path: tuple[Any, ...]) -> None:
    value = wire_value("plan_fixture_0")
    target = value
    for part in path[:-1]:
        target = target[part]
    number = target[path[-1]]
    data = encode(value).replace(
        json.dumps({path[-1]: number}, separators=(",", ":"))[1:-1].encode(),
        json.dumps({path[-1]: float(number)}, separators=(",", ":"))[1:-1].encode(),
        1,
    )
    assert data != encode(value)
    raises_kind(SER, lambda: decode_untrusted(data))


@pytest.mark.parametrize("forged", ["A" * 64, "F6" + "0" * 62, "0" * 63, "0" * 65, "g" * 64, "", 7, None])
def test_a_non_canonical_plan_hash_is_serialization(forged: Any) -> None:
    value = wire_value("plan_fixture_0")
    value["plan_hash"] = forged
    raises_kind(SER, lambda: decode_untrusted(encode(value)))


def test_an_uppercased_but_otherwise_correct_hash_is_serialization() -> None:
    value = wire_value("plan_fixture_0")
    value["plan_hash"] = value["plan_hash"].upper()
    raises_kind(SER, lambda: decode_untrusted(encode(value)))


def test_an_unknown_top_level_field_is_serialization() -> None:
    value = wire_value("plan_fixture_0")
    value["signature"] = "0" * 64
    raises_kind(SER, lambda: decode_untrusted(encode(value)))
    del value["signature"]
    del value["plan_hash"]
    raises_kind(SER, lambda: decode_untrusted(encode(value)))


@pytest.mark.parametrize(
    ("field", "items"),
    [
        ("quantization_formats", ["quantization.b", "quantization.a"]),
        ("quantization_formats", ["quantization.a", "quantization.a"]),
        ("required_capabilities", ["capability.b", "capability.a"]),
        ("required_capabilities", ["capability.a", "capability.a"]),
    ],
)
def test_unsorted_or_duplicated_set_arrays_are_serialization(field: str, items: list[str]) -> None:
    value = wire_value("plan_fixture_0")
    target = value["payload"] if field == "quantization_formats" else value["payload"]["nodes"][0]
    target[field] = items
    rehash_plan_json(value)
    raises_kind(SER, lambda: decode_untrusted(encode(value)))
    # The canonical spelling of the same set decodes (and is then a semantic change, not a decode error).
    target[field] = sorted(set(items))
    rehash_plan_json(value)
    assert decode_untrusted(encode(value)).payload_wire() == value["payload"]


@pytest.mark.parametrize("rows", ["static_allocations", "dynamic_descriptors", "dynamic_pools"])
def test_reversed_memory_rows_are_serialization(rows: str) -> None:
    value = wire_value("sequential_scratch")
    assert len(value["payload"]["memory"][rows]) >= 2
    value["payload"]["memory"][rows].reverse()
    rehash_plan_json(value)
    raises_kind(SER, lambda: decode_untrusted(encode(value)))


@pytest.mark.parametrize(
    ("path", "new"),
    [
        (("memory", "dynamic_descriptors", 0, "alignment_bytes"), 3),
        (("memory", "dynamic_descriptors", 0, "usage"), "weights"),
        (("memory", "dynamic_descriptors", 0, "pool_id"), "dynamic-pool/sha256/" + "0" * 64),
        (("memory", "dynamic_pools", 0, "pool_id"), "dynamic-pool/sha256/" + "0" * 64),
        (("memory", "minimum_invocation_peak_bytes"), 2**64 - 1),
        (("memory", "static_allocations", 0, "size_bytes"), 1024),
        (("memory", "static_allocations", 1, "storage", "profile"), {"allocator": {"paged": {"block_bytes": 4096}}}),
        (("memory", "dynamic_pools", 0, "checkpoint_growth_ceiling_bytes"), 16),
    ],
)
def test_nested_self_inconsistency_is_serialization(path: tuple[Any, ...], new: Any) -> None:
    """05 §9.5 decode-4 rows (and D-05PW-3: the seed's ``static size 1024`` forgery fails the memory validator)."""
    value = wire_value("plan_fixture_0")
    put(value, ("payload", *path), new)
    rehash_plan_json(value)
    raises_kind(SER, lambda: decode_untrusted(encode(value)))


@given(cut=st.integers(min_value=0, max_value=len(built("plan_fixture_0").to_json()) - 1))
def test_every_truncated_wire_is_serialization(cut: int) -> None:
    data = built("plan_fixture_0").to_json()[:cut]
    raises_kind(SER, lambda: decode_untrusted(data))


def test_a_few_fixed_truncations() -> None:
    data = built("graph_state_chain").to_json()
    for cut in (0, 1, 10, len(data) // 2, len(data) - 2, len(data) - 1):
        raises_kind(SER, lambda cut=cut: decode_untrusted(data[:cut]))


# --------------------------------------------------------------------------- which rule each refusal implements


def _rules_of(data: bytes) -> tuple[str, ...]:
    with pytest.raises(Serialization) as caught:
        decode_untrusted(data)
    return error_rules(caught.value)


def _spliced(name: str, path: tuple[Any, ...], text: str) -> bytes:
    """The wire of ``name`` with the value at ``path`` written as the raw JSON ``text``."""
    value = wire_value(name)
    put(value, path, "__spliced__")
    return encode(value).replace(b'"__spliced__"', text.encode(), 1)


_TYPE_ERROR = "01.3.6/decode_type_error"


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("-0", ("01.3.3/decode_minus_zero_integer_field", _TYPE_ERROR)),
        ("NaN", ("01.3.3/decode_nan_infinity",)),
        ("-Infinity", ("01.3.3/decode_nan_infinity",)),
        (str(2**64), ("01.3.3/decode_integer_out_of_range", _TYPE_ERROR)),
        ("1e400", ("05.9.1/step2_not_json",)),
    ],
)
def test_each_strict_reader_refusal_raises_at_the_site_of_its_rule(text: str, rules: tuple[str, ...]) -> None:
    """A ``-0`` or an integer past ``u64`` is a float to serde: a type error of the typed decode (01 §3.6)."""
    assert _rules_of(_spliced("plan_fixture_0", ("payload", "maximum_scheduled_tokens"), text)) == rules


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("3.0", ("01.5/unsigned_rejects_float", "04.0/unsigned_fields_range_checked", _TYPE_ERROR)),
        ("true", ("01.5/unsigned_rejects_bool", "04.0/unsigned_fields_range_checked", _TYPE_ERROR)),
        ('"3"', ("01.5/struct_wrong_json_type", _TYPE_ERROR)),
        ("-3", ("01.5/unsigned_rejects_negative", "04.0/unsigned_fields_range_checked")),
        (str(2**32), ("01.5/unsigned_rejects_out_of_range", "04.0/unsigned_fields_range_checked")),
    ],
)
def test_each_way_of_not_being_an_unsigned_integer_raises_at_its_own_site(text: str, rules: tuple[str, ...]) -> None:
    """A float, a boolean or another JSON type in a ``u32`` field is a type error of the typed decode (01 §3.6);
    a negative integer or one past ``u32`` is a value error."""
    assert _rules_of(_spliced("plan_fixture_0", ("payload", "memory", "maximum_active_sequences"), text)) == rules


@pytest.mark.parametrize("text", ["8.0", "true", '"8"', "-8", str(2**16)])
def test_a_header_number_of_the_wrong_type_or_outside_u16_is_a_step_2_refusal(text: str) -> None:
    rules = _rules_of(_spliced("plan_fixture_0", ("payload", "schema", "major"), text))
    assert "05.9.1/step2_header_numbers" in rules and _TYPE_ERROR not in rules


def test_a_repeated_key_raises_at_the_duplicate_key_site() -> None:
    data = encode(wire_value("plan_fixture_0")).replace(b'"work":"fixed"', b'"work":"fixed","work":"fixed"', 1)
    assert _rules_of(data) == ("01.3.3/decode_duplicate_known_field",)


def _round_trip_rules(value: dict[str, Any]) -> tuple[str, ...]:
    rehash_plan_json(value)
    rules = _rules_of(encode(value))
    assert "01.3.6/decode_reserialization_differs" in rules
    return rules


def test_each_round_trip_difference_raises_at_the_site_of_its_rule() -> None:
    value = wire_value("plan_fixture_0")
    omitted = copy.deepcopy(value)
    del omitted["payload"]["memory"]["reusable_execution"]
    assert "05.9.1/step5_round_trip_omitted_option_key" in _round_trip_rules(omitted)
    growth = copy.deepcopy(value)
    growth["payload"]["memory"]["dynamic_pools"][0]["checkpoint_growth_ceiling_bytes"] = 0
    assert "05.9.1/step5_round_trip_explicit_skipped_default" in _round_trip_rules(growth)
    version = copy.deepcopy(value)
    version["payload"]["policy_version"]["note"] = 0
    assert "01.2/contract_version_extra_keys_rejected_in_reserialized_wires" in _round_trip_rules(version)
    unknown = copy.deepcopy(value)
    unknown["payload"]["memory"]["static_allocations"][0]["note"] = 0
    rules = _round_trip_rules(unknown)
    assert "05.9.1/step5_round_trip_unknown_nested_key" in rules
    assert "01.2/contract_version_extra_keys_rejected_in_reserialized_wires" not in rules


def test_the_round_trip_difference_classifier() -> None:
    assert round_trip_difference({"a": [1, 2]}, {"a": [1, 2]}) is None
    assert round_trip_difference({"a": 1}, {"a": 1, "b": None}) == "omitted"
    assert round_trip_difference({"a": 1, "checkpoint_growth_ceiling_bytes": 0}, {"a": 1}) == "skipped_default"
    assert round_trip_difference({"major": 1, "minor": 0, "x": 1}, {"major": 1, "minor": 0}) == "version_key"
    assert round_trip_difference({"a": 1, "x": 1}, {"a": 1}) == "unknown_key"
    assert round_trip_difference({"s": ["b", "a"]}, {"s": ["a", "b"]}) == "unsorted_set"
    assert round_trip_difference({"s": ["a", "a"]}, {"s": ["a"]}) == "unsorted_set"
    assert round_trip_difference({"n": 1.0}, {"n": 1}) == "value"
    assert round_trip_difference({"s": ["a", "c"]}, {"s": ["a", "b"]}) == "value"
