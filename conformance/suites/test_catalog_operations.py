"""Catalog-side operations (03 §11): untrusted catalog wires, engine lookups and provider compatibility.

``decode_catalog`` decodes an untrusted map-shaped ``CapabilityCatalog`` wire the way serde does
(``deny_unknown_fields``, a repeated struct field refused, a repeated map key keeping its last value,
a missing ``weight_materializers`` meaning identity-only) and runs ``from_maps`` steps a-i; every
refusal is ``serialization`` / ``decode capability catalog``, and an accepted wire answers the
decoded catalog's fingerprint. ``lookup_engine_provider`` is ``engine_provider(id, version)`` on the
scenario's catalog, answering the descriptor's exact JSON bytes. ``provider_compatibility`` answers
the exact bytes of the report (its request extended by the operation's required capabilities, the
providers in sorted order, each rejection's reasons in the fixed order of §11.4, externally tagged).
Every answer, result or error, must equal the reference's. A weight selection's registry entries meet the
catalog device only when they enter the catalog (``select_weight_plan``).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of, pinned
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import CATALOG_WIRE_CONTEXT, COMPATIBILITY_REQUEST_CONTEXT, CONTRACT_VERSION_CONTEXT, VNextError
from seeds.catalogs import (
    catalog,
    catalog_with_main_inputs,
    catalog_with_memory,
    catalog_with_resources,
    catalog_with_secondary_provider,
)
from seeds.scenarios import seed_scenario, weights_plan_scenario

OPERATION = "operation.main"
ENGINE = "provider.engine.reference"
IDENTITY = "weight-materializer.identity"
#: ``ProviderExecutionSemantics::bitwise_eager_only()``'s wire (its fingerprint is the 03 §7.2 vector).
EAGER_ONLY = {
    "contract_version": {"major": 1, "minor": 0},
    "contract_fingerprint": "bd310dd799501048f0c7de845dd1d52750d76632c2a84e49d8857b89b09e1af4",
    "repeatability": "bitwise_same_runtime",
    "replay_equivalence": "ineligible",
}


def _encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _wire(cat: Any) -> bytes:
    return _encode(cat.to_wire())


CATALOGS: list[Any] = [
    pytest.param(catalog, id="catalog"),
    pytest.param(lambda: catalog_with_memory(4096), id="catalog_with_memory_4096"),
    pytest.param(catalog_with_secondary_provider, id="catalog_with_secondary_provider"),
    pytest.param(lambda: catalog_with_main_inputs(2), id="catalog_with_main_inputs_2"),
    pytest.param(lambda: catalog_with_resources("optional", "forbidden", "optional"), id="catalog_with_resources"),
]


def _outcome(call: Callable[[], Any]) -> tuple[Any, dict[str, Any] | None]:
    try:
        return call(), None
    except VNextError as exc:
        return None, pinned(exc)


def _same_outcome(backend: Any, oracle: Any, call: Callable[[Any], Any]) -> tuple[Any, dict[str, Any] | None]:
    """The reference's result and error (one of them ``None``); the backend's must be equal."""
    want = _outcome(lambda: call(oracle))
    got = _outcome(lambda: call(backend))
    assert got[1] == want[1], f"the backend answered {got[1]}, the contract's answer is {want[1]}"
    assert got[0] == want[0], f"the backend's result {got[0]!r} differs from the reference's {want[0]!r}"
    return want


# ------------------------------------------------------------------ decode_catalog


@pytest.mark.requires("decode_catalog")
@pytest.mark.rules("03.11.1/catalog_wire_round_trip", "03.11.5/catalog_fingerprint_material")
@pytest.mark.parametrize("make", CATALOGS)
def test_an_encoded_catalog_decodes_to_its_fingerprint(backend: BackendUnderTest, oracle: Any, make: Any) -> None:
    cat = make()
    wire = _wire(cat)
    assert oracle.decode_catalog(wire) == cat.fingerprint()
    assert backend.decode_catalog(wire) == cat.fingerprint()


@pytest.mark.requires("decode_catalog")
@pytest.mark.rules("03.11.1/catalog_wire_materializers_default")
def test_a_wire_without_materializers_is_identity_only(backend: BackendUnderTest, oracle: Any) -> None:
    cat = catalog()
    raw = cat.to_wire()
    assert list(raw["weight_materializers"]) == [IDENTITY]
    del raw["weight_materializers"]
    assert oracle.decode_catalog(_encode(raw)) == cat.fingerprint()
    assert backend.decode_catalog(_encode(raw)) == cat.fingerprint()


@pytest.mark.requires("decode_catalog")
@pytest.mark.rules("03.11.1/provider_lists_resorted")
def test_a_wire_provider_list_in_any_order_is_resorted(backend: BackendUnderTest, oracle: Any) -> None:
    cat = catalog_with_secondary_provider()
    raw = cat.to_wire()
    raw["providers"][OPERATION].reverse()
    assert oracle.decode_catalog(_encode(raw)) == cat.fingerprint()
    assert backend.decode_catalog(_encode(raw)) == cat.fingerprint()


def _other_engine() -> dict[str, Any]:
    engine: dict[str, Any] = copy.deepcopy(catalog().to_wire()["engine_providers"][ENGINE])
    engine["contract_version"] = {"major": 2, "minor": 0}
    return engine


def _duplicate_engine(earlier: Any) -> bytes:
    wire = _wire(catalog())
    marker = b'"engine_providers":{'
    assert wire.count(marker) == 1
    return wire.replace(marker, marker + _encode(ENGINE) + b":" + _encode(earlier) + b",", 1)


@pytest.mark.requires("decode_catalog")
@pytest.mark.rules("03.1/btreemap_duplicate_key_last_wins", "01.3.3/decode_generic_value_last_wins")
def test_a_repeated_map_key_keeps_its_last_value(backend: BackendUnderTest, oracle: Any) -> None:
    cat = catalog()
    doubled = _duplicate_engine(_other_engine())
    assert oracle.decode_catalog(doubled) == cat.fingerprint()
    assert backend.decode_catalog(doubled) == cat.fingerprint()
    # the other order: the changed engine wins, so the fingerprint changes
    wire = _wire(cat)
    marker = _encode(ENGINE) + b":" + _encode(cat.to_wire()["engine_providers"][ENGINE])
    swapped = wire.replace(marker, marker + b"," + _encode(ENGINE) + b":" + _encode(_other_engine()), 1)
    want = oracle.decode_catalog(swapped)
    assert want != cat.fingerprint()
    assert backend.decode_catalog(swapped) == want
    # a repeated operation key and a repeated materializer key, the same value twice
    for section in ("operations", "weight_materializers"):
        raw = cat.to_wire()
        key, value = next(iter(raw[section].items()))
        entry = _encode(key) + b":" + _encode(value)
        twice = wire.replace(entry, entry + b"," + entry, 1)
        assert twice != wire
        assert oracle.decode_catalog(twice) == cat.fingerprint()
        assert backend.decode_catalog(twice) == cat.fingerprint(), section


@pytest.mark.requires("decode_catalog")
@pytest.mark.rules("03.1/derived_struct_duplicate_field", "03.10/device_decode_lenient")
def test_a_repeated_unknown_field_of_a_lenient_struct_is_skipped(backend: BackendUnderTest, oracle: Any) -> None:
    """serde skips the value of an unknown field of a struct without ``deny_unknown_fields`` unread, so
    repeating it (or repeating a key inside it) is no error there."""
    cat = catalog()
    wire = _wire(cat)
    for old, new in (
        (b'{"device":{"id"', b'{"device":{"note":{"a":1,"a":2},"note":3,"id"'),
        (b'"contract_version":{"major":1', b'"contract_version":{"patch":1,"patch":2,"major":1'),
    ):
        respelled = wire.replace(old, new)
        assert respelled != wire
        assert oracle.decode_catalog(respelled) == cat.fingerprint()
        assert backend.decode_catalog(respelled) == cat.fingerprint()


Change = Callable[[dict[str, Any]], Any]


def _rename(section: str, old: str, new: str) -> Change:
    def change(raw: dict[str, Any]) -> None:
        raw[section] = {(new if k == old else k): v for k, v in raw[section].items()}

    return change


def _materializer_key_mismatch(raw: dict[str, Any]) -> None:
    descriptor = raw["weight_materializers"][IDENTITY]
    raw["weight_materializers"]["weight-materializer.other"] = descriptor


#: Changes of the seed catalog's wire that the contract refuses, and the rules each breaks.
WIRE_REJECTIONS: dict[str, tuple[Change, tuple[str, ...]]] = {
    "unknown_top_level_key": (lambda w: w.__setitem__("extra", {}), ("03.11.1/catalog_wire_deny_unknown",)),
    "missing_engine_providers": (lambda w: w.pop("engine_providers"), ("03.1/derived_struct_missing_field",)),
    "operation_key_mismatch": (
        lambda w: (
            _rename("operations", OPERATION, "operation.other")(w),
            _rename("providers", OPERATION, "operation.other")(w),
        ),
        ("03.11.2/operation_key_mismatch",),
    ),
    "operation_without_provider_entry": (
        _rename("providers", OPERATION, "operation.other"),
        ("03.11.2/operation_without_provider_entry",),
    ),
    "engine_key_mismatch": (
        _rename("engine_providers", ENGINE, "provider.engine.other"),
        ("03.11.2/engine_key_mismatch",),
    ),
    "materializers_empty": (lambda w: w.__setitem__("weight_materializers", {}), ("03.11.2/materializers_step_b",)),
    "materializer_key_mismatch": (_materializer_key_mismatch, ("03.11.2/materializers_step_b",)),
    "materializers_checked_before_operations": (
        lambda w: w.update(weight_materializers={}, operations={}),
        ("03.11.2/materializers_step_b",),
    ),
    "operations_empty": (
        lambda w: w.update(operations={}, providers={}),
        ("03.11.2/operations_empty",),
    ),
    "providers_not_a_list": (lambda w: w["providers"].__setitem__(OPERATION, {}), ("01.5/struct_wrong_json_type",)),
    "engines_not_an_object": (lambda w: w.__setitem__("engine_providers", []), ("01.5/struct_wrong_json_type",)),
    "bad_operation_key": (
        _rename("operations", OPERATION, "bad key"),
        ("01.5/validating_wire_constructor_errors_are_serialization",),
    ),
    "device_memory_zero": (
        lambda w: w["device"].__setitem__("total_memory_bytes", 0),
        ("01.5/validating_wire_constructor_errors_are_serialization",),
    ),
}


@pytest.mark.requires("decode_catalog")
@pytest.mark.parametrize("name", sorted(WIRE_REJECTIONS))
def test_a_refused_catalog_wire_is_refused_like_the_reference(
    backend: BackendUnderTest, oracle: Any, name: str
) -> None:
    change, rules = WIRE_REJECTIONS[name]
    exercise(*rules)
    raw = catalog().to_wire()
    change(raw)
    wire = _encode(raw)
    want = error_of(lambda: oracle.decode_catalog(wire))
    assert want is not None and (want["kind"], want["context"]) == ("serialization", CATALOG_WIRE_CONTEXT), want
    got = error_of(lambda: backend.decode_catalog(wire))
    assert got == want, f"the backend answered {got}, the contract's error is {want}"


def _text_rejections() -> dict[str, bytes]:
    wire = _wire(catalog())
    device = _encode(catalog().to_wire()["device"])
    engine = _encode(catalog().to_wire()["engine_providers"][ENGINE])
    return {
        "duplicate_top_level_field": wire.replace(b'{"device":', b'{"device":' + device + b',"device":', 1),
        "duplicate_nested_field": wire.replace(engine, engine[:-1] + b',"contract_version":{"major":1,"minor":0}}', 1),
        "duplicate_map_key_invalid_earlier_value": _duplicate_engine("not an engine"),
        "duplicate_map_key_earlier_value_unknown_field": _duplicate_engine({**_other_engine(), "extra": 1}),
        "duplicate_map_key_then_trailing_data": _duplicate_engine(_other_engine()) + b"x",
        "not_json": b"{",
        "trailing_data": wire + b"x",
        "not_an_object": b"[]",
        "empty": b"",
    }


@pytest.mark.requires("decode_catalog")
@pytest.mark.parametrize("name", sorted(_text_rejections()))
def test_a_respelled_catalog_wire_is_refused_like_the_reference(
    backend: BackendUnderTest, oracle: Any, name: str
) -> None:
    if name.startswith("duplicate") and "map_key" not in name:
        exercise("03.1/derived_struct_duplicate_field")
    if "map_key" in name:
        exercise("03.1/btreemap_duplicate_key_last_wins")
    wire = _text_rejections()[name]
    want = error_of(lambda: oracle.decode_catalog(wire))
    assert want is not None and (want["kind"], want["context"]) == ("serialization", CATALOG_WIRE_CONTEXT), want
    got = error_of(lambda: backend.decode_catalog(wire))
    assert got == want, f"the backend answered {got}, the contract's error is {want}"


# ------------------------------------------------------------------ lookup_engine_provider


#: (provider id, required version, the rules the lookup checks).
LOOKUPS: list[Any] = [
    pytest.param(ENGINE, {"major": 1, "minor": 0}, (), id="found"),
    pytest.param(ENGINE, {"major": 1, "minor": 0, "patch": 3}, (), id="version_extra_key_ignored"),
    pytest.param("provider.engine.other", {"major": 1, "minor": 0}, ("03.11.4/engine_lookup_absent",), id="absent"),
    pytest.param(ENGINE, {"major": 1, "minor": 1}, ("03.11.4/engine_lookup_version",), id="newer_minor"),
    pytest.param(ENGINE, {"major": 2, "minor": 0}, ("03.11.4/engine_lookup_version",), id="other_major"),
    pytest.param(ENGINE, {"major": 0, "minor": 0}, ("03.11.4/engine_lookup_version",), id="major_zero"),
    pytest.param(
        "provider.operation.reference",
        {"major": 1, "minor": 0},
        ("03.11.4/engine_lookup_absent",),
        id="operation_provider",
    ),
    pytest.param("", {"major": 1, "minor": 0}, ("01.6/invalid_identity_fields",), id="empty_id"),
    pytest.param("bad id", {"major": 1, "minor": 0}, ("01.6/invalid_identity_fields",), id="non_portable_id"),
    pytest.param(ENGINE, {"major": 1}, ("01.2/contract_version_missing_key",), id="version_missing_minor"),
    pytest.param(ENGINE, {"major": 65536, "minor": 0}, ("01.2/contract_version_above_u16",), id="version_above_u16"),
    pytest.param(ENGINE, "1.0", ("01.5/struct_wrong_json_type",), id="version_not_an_object"),
]


@pytest.mark.requires("lookup_engine_provider")
@pytest.mark.parametrize(("provider_id", "version", "rules"), LOOKUPS)
def test_an_engine_lookup_answers_like_the_reference(
    backend: BackendUnderTest, oracle: Any, provider_id: str, version: Any, rules: tuple[str, ...]
) -> None:
    exercise(*rules)
    scenario = seed_scenario("engine-lookup")
    result, error = _same_outcome(
        backend, oracle, lambda impl: impl.lookup_engine_provider(scenario, provider_id, version)
    )
    if not rules:
        assert error is None and json.loads(result)["provider_id"] == provider_id
    elif rules[0].startswith("03.11.4"):
        assert error is not None and error["kind"] == "invalid_execution_plan"
    elif "version" in rules[0] or "json_type" in rules[0]:
        assert error == {"kind": "serialization", "context": CONTRACT_VERSION_CONTEXT}


def _lookup(scenario: Any, provider_id: str, version: Any, impl: Any) -> Any:
    return impl.lookup_engine_provider(scenario, provider_id, version)


@pytest.mark.requires("lookup_engine_provider")
def test_an_engine_lookup_decodes_its_arguments_before_the_scenario(backend: BackendUnderTest, oracle: Any) -> None:
    for provider_id, version, kind in (
        ("", {"major": 1, "minor": 0}, "invalid_identity"),
        (ENGINE, [], "serialization"),
        (ENGINE, {"major": 1, "minor": 0}, "serialization"),
    ):
        _, error = _same_outcome(backend, oracle, functools.partial(_lookup, {}, provider_id, version))
        assert error is not None and error["kind"] == kind


# ------------------------------------------------------------------ provider_compatibility


def _mixed_scenario() -> dict[str, Any]:
    """Two providers of ``operation.main``: the reference one, and a secondary one at version 1.1 that
    accepts only ``weight-format.packed`` and is eager-only."""
    scenario = seed_scenario("compatibility", catalog_value=catalog_with_secondary_provider())
    secondary = scenario["catalog"]["providers"][OPERATION][1]
    assert secondary["provider_id"] == "provider.operation.secondary"
    secondary["version"] = {"major": 1, "minor": 1}
    secondary["accepted_weight_formats"] = ["weight-format.packed"]
    secondary["execution_semantics"] = EAGER_ONLY
    return scenario


def _request(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "operation_id": OPERATION,
        "required_version": {"major": 1, "minor": 0},
        "required_capabilities": [],
        "required_weight_formats": ["weight-format.dense"],
        "required_quantization_formats": [],
        "execution_determinism": "bitwise_same_runtime",
    }
    request.update(changes)
    return request


#: (request changes, the rules the report checks).
REQUESTS: list[Any] = [
    pytest.param({}, ("03.11.4/compatible_iff_no_reasons", "03.11.4/reason_unsupported_weight_formats"), id="dense"),
    pytest.param({"required_weight_formats": []}, ("03.11.4/compatible_iff_no_reasons",), id="all_compatible"),
    pytest.param(
        {"required_version": {"major": 1, "minor": 1}},
        ("03.11.4/reason_operation_version_mismatch", "03.11.4/reason_provider_version_mismatch"),
        id="newer_minor",
    ),
    pytest.param(
        {"required_version": {"major": 2, "minor": 0}}, ("03.11.4/reason_provider_version_mismatch",), id="other_major"
    ),
    pytest.param(
        {"required_capabilities": ["capability.extra"]}, ("03.11.4/reason_missing_capabilities",), id="capability"
    ),
    pytest.param(
        {"required_quantization_formats": ["quantization.int4", "quantization.int8"]},
        ("03.11.4/reason_unsupported_quantization_formats",),
        id="quantization",
    ),
    pytest.param(
        {"execution_determinism": "bitwise_same_runtime_with_replay", "required_weight_formats": []},
        ("03.11.4/reason_insufficient_execution_determinism",),
        id="replay",
    ),
    pytest.param(
        {
            "required_version": {"major": 2, "minor": 0},
            "required_capabilities": ["capability.z", "capability.compute", "capability.a"],
            "required_weight_formats": ["weight-format.packed", "weight-format.dense"],
            "required_quantization_formats": ["quantization.int8"],
            "execution_determinism": "bitwise_same_runtime_with_replay",
        },
        ("03.11.4/reason_operation_version_mismatch", "03.1/btreeset_input_any_order"),
        id="every_reason",
    ),
]


@pytest.mark.requires("provider_compatibility")
@pytest.mark.rules(
    "03.11.4/reasons_order",
    "03.11.4/report_shape",
    "03.11.4/reason_wire_tagged",
    "03.11.4/compat_required_capabilities_added",
)
@pytest.mark.parametrize(("changes", "rules"), REQUESTS)
def test_a_compatibility_report_equals_the_reference(
    backend: BackendUnderTest, oracle: Any, changes: dict[str, Any], rules: tuple[str, ...]
) -> None:
    exercise(*rules)
    scenario = _mixed_scenario()
    request = _request(**changes)
    want = oracle.provider_compatibility(scenario, request)
    report = json.loads(want)
    assert list(report) == ["request", "compatible_provider_ids", "rejected"]
    assert "capability.compute" in report["request"]["required_capabilities"]
    compatible = report["compatible_provider_ids"]
    rejected = [r["provider_id"] for r in report["rejected"]]
    assert compatible == sorted(set(compatible)) and rejected == sorted(set(rejected))
    assert not set(compatible) & set(rejected) and (compatible or rejected)
    for rejection in report["rejected"]:
        assert rejection["reasons"] and all(len(reason) == 1 for reason in rejection["reasons"])
    got = backend.provider_compatibility(scenario, request)
    assert got == want, f"the backend's report {got!r} differs from the reference's {want!r}"


#: Requests the contract refuses: (request, scenario or None for the mixed one, expected kind, rules).
REFUSED_REQUESTS: dict[str, tuple[Any, Any, str, tuple[str, ...]]] = {
    "unknown_operation": (
        _request(operation_id="operation.other"),
        None,
        "unsupported_operation",
        ("03.11.4/compat_unknown_operation",),
    ),
    "unknown_field": ({**_request(), "extra": 1}, None, "serialization", ("03.11.4/request_wire",)),
    "missing_field": (
        {k: v for k, v in _request().items() if k != "execution_determinism"},
        None,
        "serialization",
        ("03.11.4/request_wire",),
    ),
    "major_zero": (
        _request(required_version={"major": 0, "minor": 3}),
        None,
        "serialization",
        ("03.11.4/request_wire",),
    ),
    "bad_operation_id": (_request(operation_id="bad id"), None, "serialization", ("03.11.4/request_wire",)),
    "bad_determinism": (_request(execution_determinism="bitwise"), None, "serialization", ("03.11.4/request_wire",)),
    "not_an_object": ([], None, "serialization", ("03.11.4/request_wire",)),
    "request_before_scenario": ({**_request(), "extra": 1}, {}, "serialization", ("03.11.4/request_wire",)),
    "bad_scenario": (_request(), {}, "serialization", ()),
}


@pytest.mark.requires("provider_compatibility")
@pytest.mark.parametrize("name", sorted(REFUSED_REQUESTS))
def test_a_refused_compatibility_request_is_refused_like_the_reference(
    backend: BackendUnderTest, oracle: Any, name: str
) -> None:
    request, scenario, kind, rules = REFUSED_REQUESTS[name]
    exercise(*rules)
    scenario = _mixed_scenario() if scenario is None else scenario
    _, error = _same_outcome(backend, oracle, lambda impl: impl.provider_compatibility(scenario, request))
    assert error is not None and error["kind"] == kind, error
    if kind == "unsupported_operation":
        assert error["node_id"] is None and error["operation_id"] == "operation.other"
    elif name == "bad_scenario":
        assert error["context"] == "decode scenario"
    else:
        assert error["context"] == COMPATIBILITY_REQUEST_CONTEXT


# ------------------------------------------------------------------ materializer registry against the device


@pytest.mark.requires("select_weight_plan")
@pytest.mark.rules("03.11.6/registry_device_caps_deferred")
def test_a_registry_entry_meets_the_device_only_in_the_catalog(backend: BackendUnderTest, oracle: Any) -> None:
    """A registered materializer requiring a capability the device lacks is accepted by the registry: selecting
    the identity without augmenting the catalog succeeds; augmenting the catalog with it refuses (03 §11.6)."""
    scenario = weights_plan_scenario("padded_dense")
    weights = scenario["weights"]
    weights["registry"]["materializers"][0]["descriptor"]["required_capabilities"] = ["capability.absent"]
    weights["materializer_id"] = IDENTITY
    weights["augment_catalog"] = False
    result, error = _same_outcome(backend, oracle, lambda impl: impl.select_weight_plan(scenario))
    assert error is None and result is not None, error
    weights["augment_catalog"] = True
    with pytest.raises(VNextError) as refused:
        oracle.select_weight_plan(scenario)
    assert "requires capabilities absent from device" in refused.value.message, refused.value
    assert error_of(lambda: backend.select_weight_plan(scenario)) == pinned(refused.value)
