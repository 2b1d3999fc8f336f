"""Untrusted PreparedModelFamily wires revalidated against a family registry (02 §4.4, §7.4-§7.5).

``revalidate_family`` decodes the wire untrusted (size cap, last-key-wins parse, strict field
decode, re-serialisation equality, wire version), then resolves its family and external metadata
ids through the scenario's family registry (a version-2 scenario lists several registrations),
rebuilds the family and requires the rebuilt wire to equal the untrusted one. Accepted wires
answer the rebuilt family's fingerprint; every rejection must equal the reference's error in its
kind and every field the contract pins.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import LIMITS
from seeds.families import seed_family_document
from seeds.scenarios import registries_scenario, seed_scenario

CONTEXT = "decode untrusted prepared model family"
MAX_WIRE = LIMITS["max_prepared_model_family_wire_bytes"]

FAMILIES = [
    pytest.param("test", {}, id="test"),
    pytest.param("ordered_schema", {}, id="ordered_schema"),
    pytest.param("sequential_scratch", {}, id="sequential_scratch"),
    pytest.param("graph", {"scenario": "state_chain"}, id="graph_state_chain"),
]


def _scenario(family: str = "test", **params: Any) -> dict[str, Any]:
    return seed_scenario(f"revalidate-family-{family}", family=family, family_params=params)


def _wire(oracle: Any, scenario: dict[str, Any] | None = None) -> bytes:
    return bytes(oracle.prepare_family(scenario or _scenario()).wire)


def _encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _same_error(backend: BackendUnderTest, oracle: Any, scenario: dict[str, Any], wire: bytes) -> dict[str, Any]:
    want = error_of(lambda: oracle.revalidate_family(scenario, wire))
    assert want is not None, "the reference accepts this wire"
    got = error_of(lambda: backend.revalidate_family(scenario, wire))
    assert got == want, f"the backend answered {got}, the contract's error is {want}"
    return want


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("02.7.5/returns_rebuilt", "02.7.5/revalidate_resolves_family", "02.4.4/resolve_no_fallback")
@pytest.mark.parametrize(("family", "params"), FAMILIES)
def test_a_prepared_wire_revalidates_to_its_fingerprint(
    backend: BackendUnderTest, oracle: Any, family: str, params: dict[str, Any]
) -> None:
    scenario = _scenario(family, **params)
    prepared = oracle.prepare_family(scenario)
    assert backend.revalidate_family(scenario, prepared.wire) == prepared.fingerprint


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("01.5/prepared_family_wire_cap", "02.7.4/wire_size_cap", "02.7.4/wire_size_cap_inclusive")
def test_the_size_cap_is_inclusive_and_checked_before_parsing(backend: BackendUnderTest, oracle: Any) -> None:
    scenario = _scenario()
    prepared = oracle.prepare_family(scenario)
    exact = prepared.wire + b" " * (MAX_WIRE - len(prepared.wire))
    assert backend.revalidate_family(scenario, exact) == prepared.fingerprint
    for over in (exact + b" ", b"[" * (MAX_WIRE + 1)):
        error = _same_error(backend, oracle, scenario, over)
        assert error["kind"] == "serialization" and error["context"] == CONTEXT


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("02.7.4/duplicate_keys_last_wins", "01.3.3/decode_generic_value_last_wins")
def test_a_duplicated_key_keeps_its_last_value(backend: BackendUnderTest, oracle: Any) -> None:
    scenario = _scenario()
    prepared = oracle.prepare_family(scenario)
    doubled = prepared.wire.replace(b'"wire_version":2', b'"wire_version":7,"wire_version":2', 1)
    assert doubled != prepared.wire
    assert backend.revalidate_family(scenario, doubled) == prepared.fingerprint


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("01.3.3/decode_nesting_depth_128")
def test_nesting_of_128_is_refused_while_parsing_and_127_is_read(backend: BackendUnderTest, oracle: Any) -> None:
    """A nested array in the canonical config (any JSON value): 127 levels in all parse and the unconsumed
    key is refused by the family, 128 are the parser's recursion limit."""
    scenario = _scenario()
    value = json.loads(_wire(oracle, scenario))
    for depth in (127, 128):
        deep: Any = 0
        for _ in range(depth - 2):  # the wire object and the config object are two levels
            deep = [deep]
        value["canonical_config"]["deep"] = deep
        error = _same_error(backend, oracle, scenario, _encode(value))
        assert (error["kind"] == "serialization") == (depth == 128), (depth, error)


Change = Callable[[dict[str, Any]], None]


def _states(w: dict[str, Any]) -> list[dict[str, Any]]:
    states: list[dict[str, Any]] = w["program"]["states"]
    return states


#: Decode-stage rejections: (change of the TestFamily wire, the rules it breaks).
DECODE_REJECTIONS: dict[str, tuple[Change, tuple[str, ...]]] = {
    "unknown_top_level_key": (lambda w: w.__setitem__("extra", 1), ("02.7.4/top_level_deny_unknown",)),
    "missing_top_level_key": (lambda w: w.pop("metadata"), ("02.7.4/top_level_deny_unknown",)),
    "unknown_nested_version_key": (
        lambda w: w["weight_schema"]["version"].__setitem__("patch", 0),
        ("02.7.4/reserialization_rejects_unknown_nested_key",),
    ),
    "unknown_key_in_lenient_schema": (
        lambda w: w["weight_schema"].__setitem__("note", "x"),
        ("02.7.4/reserialization_rejects_unknown_nested_key",),
    ),
    "unknown_key_in_metadata": (
        lambda w: w["metadata"]["template"].__setitem__("extra", 1),
        ("02.7.4/reserialization_rejects_unknown_nested_key",),
    ),
    "explicit_unsupported_checkpoint": (
        lambda w: _states(w)[0].__setitem__("checkpoint", "unsupported"),
        ("02.7.4/reserialization_rejects_explicit_defaults",),
    ),
    "null_checkpoint_inputs": (
        lambda w: w["program"].__setitem__("checkpoint_inputs", None),
        ("02.7.4/reserialization_rejects_explicit_defaults",),
    ),
    "missing_multiplication_type": (
        lambda w: w["numerical_profile"]["operations"][0].pop("multiplication_type"),
        ("02.7.4/reserialization_rejects_missing_option_keys",),
    ),
    "wire_version_1": (lambda w: w.__setitem__("wire_version", 1), ("02.7.4/wire_version_not_two",)),
    "wire_version_3": (lambda w: w.__setitem__("wire_version", 3), ("02.7.4/wire_version_not_two",)),
    "wire_version_float": (lambda w: w.__setitem__("wire_version", 2.0), ("02.7.4/nested_validating_decoders",)),
    "unsorted_eos_set": (
        lambda w: w["metadata"]["special_tokens"].__setitem__("eos_token_ids", [3, 2]),
        ("02.7.4/reserialization_rejects_unsorted_or_duplicate_sets",),
    ),
    "duplicate_eos": (
        lambda w: w["metadata"]["special_tokens"].__setitem__("eos_token_ids", [2, 2]),
        ("02.7.4/reserialization_rejects_unsorted_or_duplicate_sets",),
    ),
    "reversed_collision": (
        lambda w: w["metadata"]["special_tokens"]["collision_policy"].__setitem__(
            "allowed", [{"first": "pad", "second": "bos"}]
        ),
        ("02.7.4/reserialization_rejects_reversed_collision",),
    ),
    "bad_profile_id": (
        lambda w: w["numerical_profile"].__setitem__("id", "bad id"),
        ("02.7.4/nested_validating_decoders",),
    ),
    "bad_family_id": (lambda w: w.__setitem__("family_id", ""), ("02.7.4/nested_validating_decoders",)),
    "program_outputs_duplicated": (
        lambda w: w["program"].__setitem__("outputs", ["value.output", "value.output"]),
        ("02.10.2/program_decode_duplicate_outputs", "02.10.2/program_decode_runs_new"),
    ),
    "program_unknown_key": (
        lambda w: w["program"].__setitem__("note", 1),
        ("02.7.4/reserialization_rejects_unknown_nested_key",),
    ),
    "state_bad_capacity": (
        lambda w: _states(w)[0]["tensor"].__setitem__("dimensions", [1 << 62, 1 << 62]),
        ("02.10.1/state_decode_validates",),
    ),
    "version_and_unknown_key": (
        lambda w: w.update(wire_version=3, extra=1),
        ("02.7.4/decode_order",),
    ),
}


@pytest.mark.requires("revalidate_family")
@pytest.mark.parametrize("case", sorted(DECODE_REJECTIONS))
def test_decode_rejections_match_the_reference(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    change, rules = DECODE_REJECTIONS[case]
    exercise(*rules)
    scenario = _scenario()
    value = json.loads(_wire(oracle, scenario))
    change(value)
    error = _same_error(backend, oracle, scenario, _encode(value))
    assert error["kind"] == "serialization" and error["context"] == CONTEXT


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("02.7.4/reserialization_rejects_non_reduced_rational", "02.7.4/nested_validating_decoders")
def test_a_non_reduced_rational_fails_decoding(backend: BackendUnderTest, oracle: Any) -> None:
    scenario = _scenario()
    node = scenario["family"]["document"]["program"]["blocks"][0]["nodes"][0]
    node["attributes"] = {"attr.scale": {"rational": {"numerator": 1, "denominator": 2}}}
    prepared = oracle.prepare_family(scenario)
    assert backend.revalidate_family(scenario, prepared.wire) == prepared.fingerprint
    reduced = b'{"numerator":1,"denominator":2}'
    assert prepared.wire.count(reduced) == 1
    error = _same_error(backend, oracle, scenario, prepared.wire.replace(reduced, b'{"numerator":2,"denominator":4}'))
    assert (error["kind"], error["context"]) == ("serialization", CONTEXT)


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("02.7.4/reserialization_rejects_unsorted_program_lists", "02.7.5/unsorted_profile_lists")
def test_unsorted_states_fail_decode_or_revalidation(backend: BackendUnderTest, oracle: Any) -> None:
    doc = seed_family_document("test")
    second = copy.deepcopy(doc["program"]["states"][0])
    second["id"], second["value_id"] = "state.alpha", "value.alpha"
    doc["program"]["states"].append(second)
    doc["numerical_profiles"]["profiles"][0]["states"].append(second)
    scenario = _scenario()
    scenario["family"]["document"] = doc
    value = json.loads(_wire(oracle, scenario))
    program = copy.deepcopy(value)
    program["program"]["states"].reverse()
    error = _same_error(backend, oracle, scenario, _encode(program))
    assert error["kind"] == "serialization"
    profile = copy.deepcopy(value)
    profile["numerical_profile"]["states"].reverse()
    error = _same_error(backend, oracle, scenario, _encode(profile))
    assert (error["kind"], error["field"]) == ("invalid_model_config", "prepared_package")


#: Revalidation rejections of forged but decodable TestFamily wires: (change, field, rules).
FORGERIES: dict[str, tuple[Change, str, tuple[str, ...]]] = {
    "config_fingerprint": (
        lambda w: w.__setitem__("config_fingerprint", "0" * 64),
        "prepared_package",
        ("02.7.5/forged_fields_rejected", "02.7.5/rebuilt_differs", "02.7.1/prepared_equality_all_fields"),
    ),
    "alias_external_id": (
        lambda w: w.__setitem__("external_metadata_id", "metadata.synthetic.alias"),
        "prepared_package",
        ("02.7.5/forged_alias_external_id",),
    ),
    "schema_external_names": (
        lambda w: w["weight_schema"]["components"][0].__setitem__("external_names", ["other.bin"]),
        "prepared_package",
        ("02.7.5/forged_fields_rejected", "02.7.1/prepared_equality_all_fields"),
    ),
    "metadata_template": (
        lambda w: w["metadata"]["template"].__setitem__("sha256", "d" * 64),
        "prepared_package",
        ("02.7.5/forged_fields_rejected",),
    ),
    "profile_version": (
        lambda w: w["numerical_profile"]["version"].__setitem__("minor", 1),
        "prepared_package",
        ("02.7.5/forged_fields_rejected",),
    ),
    "program_block": (
        lambda w: w["program"]["blocks"][0].__setitem__("id", "block.other"),
        "prepared_package",
        ("02.7.5/forged_fields_rejected",),
    ),
    "undeclared_profile": (
        lambda w: w["numerical_profile"].__setitem__("id", "fixture.f16"),
        "numerical_profile",
        ("02.7.5/undeclared_profile_id", "02.7.5/rebuild_errors_propagate"),
    ),
    "config_drift": (
        lambda w: w.__setitem__("canonical_config", {"width": 5}),
        "width",
        ("02.7.5/rebuild_errors_propagate", "02.7.5/forged_fields_rejected"),
    ),
    "config_extra_key": (
        lambda w: w.__setitem__("canonical_config", {"width": 4, "x": 1}),
        "/x",
        ("02.7.5/rebuild_errors_propagate",),
    ),
}


@pytest.mark.requires("revalidate_family")
@pytest.mark.parametrize("case", sorted(FORGERIES))
def test_forged_wires_fail_revalidation_like_the_reference(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    change, field, rules = FORGERIES[case]
    exercise(*rules)
    scenario = _scenario()
    value = json.loads(_wire(oracle, scenario))
    change(value)
    error = _same_error(backend, oracle, scenario, _encode(value))
    assert (error["kind"], error["field"], error["family_id"]) == ("invalid_model_config", field, "family.synthetic")


def _document(name: str = "test", **changes: Any) -> dict[str, Any]:
    doc = dict(seed_family_document(name))
    doc.update(changes)
    return doc


def _other_family(*external: str) -> dict[str, Any]:
    """TestFamily's document under another family id, declaring ``external`` (the first is selected)."""
    doc = _document(family_id="family.other", external_metadata_ids=sorted(external))
    doc["selected_external_metadata_id"] = external[0]
    program = copy.deepcopy(doc["program"])
    program["family_id"] = "family.other"
    doc["program"] = program
    profiles = copy.deepcopy(doc["numerical_profiles"])
    for profile in profiles["profiles"]:
        profile["family_id"] = "family.other"
    doc["numerical_profiles"] = profiles
    return doc


#: Registries of several registrations: (family documents, expected error kind and pinned fields, rules).
REGISTRIES: dict[str, tuple[Callable[[], list[dict[str, Any]]], dict[str, Any], tuple[str, ...]]] = {
    "empty": (
        lambda: [],
        {"kind": "unknown_model_family", "family_id": "family.synthetic"},
        ("02.4.4/resolve_unknown_family", "01.6/unknown_model_family_fields", "02.7.5/revalidate_resolves_family"),
    ),
    "another_family_only": (
        lambda: [_other_family("metadata.other")],
        {"kind": "unknown_model_family", "family_id": "family.synthetic"},
        ("02.4.4/resolve_unknown_family", "02.4.4/resolve_no_fallback"),
    ),
    "test_and_ordered": (
        lambda: [_document("test"), _document("ordered_schema")],
        {
            "kind": "ambiguous_model_family_registration",
            "identity_kind": "internal family",
            "identity": "family.synthetic",
            "matches": 2,
        },
        (
            "02.12/test_and_ordered_registry_ambiguous",
            "02.4.4/resolve_ambiguous_family",
            "01.6/ambiguous_registration_fields",
        ),
    ),
    "three_registrations": (
        lambda: [_document("test")] * 3,
        {
            "kind": "ambiguous_model_family_registration",
            "identity_kind": "internal family",
            "identity": "family.synthetic",
            "matches": 3,
        },
        ("02.4.4/resolve_ambiguous_family", "02.4.4/resolve_no_fallback"),
    ),
    "unknown_external": (
        lambda: [_document(external_metadata_ids=["metadata.other"], selected_external_metadata_id="metadata.other")],
        {"kind": "unknown_external_model_metadata", "metadata_id": "metadata.synthetic"},
        ("02.4.4/resolve_unknown_external", "01.6/unknown_external_metadata_fields", "02.7.5/revalidate_order"),
    ),
    "ambiguous_external": (
        lambda: [_document("test"), _other_family("metadata.synthetic")],
        {
            "kind": "ambiguous_model_family_registration",
            "identity_kind": "external metadata",
            "identity": "metadata.synthetic",
            "matches": 2,
        },
        ("02.4.4/resolve_ambiguous_external", "01.6/ambiguous_registration_fields", "02.7.5/revalidate_order"),
    ),
    "external_id_of_another_registration": (
        lambda: [
            _document(
                external_metadata_ids=["metadata.synthetic.alias"],
                selected_external_metadata_id="metadata.synthetic.alias",
            ),
            _other_family("metadata.synthetic"),
        ],
        {"kind": "invalid_model_config", "family_id": "family.synthetic", "field": "external_metadata_id"},
        ("02.7.5/external_id_same_registration", "02.7.5/revalidate_order"),
    ),
    "ordered_schema_only": (
        lambda: [_document("ordered_schema")],
        {"kind": "invalid_model_config", "family_id": "family.synthetic", "field": "prepared_package"},
        ("02.12/ordered_registry_rebuilds_differently", "02.7.5/rebuilt_differs"),
    ),
}


@pytest.mark.requires("revalidate_family")
@pytest.mark.parametrize("case", sorted(REGISTRIES))
def test_registry_resolution_errors_match_the_reference(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    documents, expected, rules = REGISTRIES[case]
    exercise(*rules)
    base = _scenario()
    wire = _wire(oracle, base)
    scenario = registries_scenario(base, documents())
    assert _same_error(backend, oracle, scenario, wire) == expected


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("02.4.4/resolve_no_fallback", "02.7.5/returns_rebuilt")
def test_one_matching_registration_among_others_resolves(backend: BackendUnderTest, oracle: Any) -> None:
    base = _scenario()
    prepared = oracle.prepare_family(base)
    scenario = registries_scenario(base, [_other_family("metadata.other"), _document("test")])
    assert backend.revalidate_family(scenario, prepared.wire) == prepared.fingerprint


@pytest.mark.requires("revalidate_family")
@pytest.mark.rules("02.7.4/decode_order")
def test_the_wire_is_decoded_before_the_scenario(backend: BackendUnderTest, oracle: Any) -> None:
    broken: dict[str, Any] = {"scenario_version": 99}
    error = _same_error(backend, oracle, broken, b"not json")
    assert (error["kind"], error["context"]) == ("serialization", CONTEXT)
    error = _same_error(backend, oracle, broken, _wire(oracle))
    assert (error["kind"], error["context"]) == ("serialization", "decode scenario")
