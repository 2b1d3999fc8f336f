"""revalidate_family, compile_plan and check_identity (decision H-22) and the catalog-side operations
(decision H-30) over the protocol."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from harness.backends.reference import ReferenceImplementation
from harness.protocol.codecs import ChoiceParam, DocumentParam, EmptyResult, ProtocolError, StringParam
from harness.protocol.operations import OPERATIONS
from harness.protocol.validation import SchemaCheck
from reference import api
from reference.documents.compile_options import compile_options_from_document, compile_options_to_document
from reference.errors import Serialization
from seeds.catalogs import catalog
from seeds.scenarios import seed_scenario

from .test_harness_protocol import HANDSHAKE, converse

OPTIONS = {
    "tensor_specs": {"value.input": {"dimensions": [4], "element_type": "f32", "layout": "contiguous"}},
    "required_capabilities": {"node.main": ["capability.compute"]},
    "preferred_providers": {"node.main": "provider.operation.reference"},
}


def _call(op: str, params: dict[str, Any]) -> dict[str, Any]:
    replies = converse(ReferenceImplementation(), HANDSHAKE, {"id": 1, "op": op, "params": params})
    reply: dict[str, Any] = replies[1]
    return reply


def test_the_reference_declares_the_new_operations() -> None:
    assert {"revalidate_family", "compile_plan", "check_identity"} <= set(api.supported_operations())
    assert all(OPERATIONS[op].level.label == "full" for op in ("revalidate_family", "compile_plan", "check_identity"))


def test_revalidate_family_round_trips_a_prepared_wire() -> None:
    scenario = seed_scenario("wire")
    prepared = api.prepare_family(scenario)
    params = OPERATIONS["revalidate_family"].encode_params((scenario, prepared.wire))
    assert _call("revalidate_family", params) == {"id": 1, "result": {"fingerprint": prepared.fingerprint}}
    error = _call("revalidate_family", {"scenario": {}, "wire_base64": ""})["error"]
    assert (error["kind"], error["context"]) == ("serialization", "decode untrusted prepared model family")


def test_compile_plan_answers_the_plan_wire_and_decodes_options_first() -> None:
    scenario = seed_scenario("compile")
    reply = _call("compile_plan", {"scenario": scenario, "options": OPTIONS})
    assert json.loads(base64.b64decode(reply["result"]["wire_base64"]))["payload"]["nodes"]
    error = _call("compile_plan", {"scenario": {}, "options": []})["error"]
    assert (error["kind"], error["context"]) == ("serialization", "decode compile options")


def test_compile_options_documents_round_trip() -> None:
    options = compile_options_from_document(OPTIONS)
    assert compile_options_to_document(options) == OPTIONS
    for bad in (
        {**OPTIONS, "x": 1},
        {**OPTIONS, "preferred_providers": {"node.main": 3}},
        {**OPTIONS, "tensor_specs": []},
    ):
        with pytest.raises(Serialization) as info:
            compile_options_from_document(bad)
        assert info.value.context == "decode compile options"


def test_check_identity_answers_empty_or_the_invalid_identity_and_refuses_unknown_kinds() -> None:
    assert _call("check_identity", {"identity_kind": "node", "value": "node.a"}) == {"id": 1, "result": {}}
    error = _call("check_identity", {"identity_kind": "weight", "value": " w"})["error"]
    assert {k: error[k] for k in ("kind", "identity_kind", "value", "reason")} == {
        "kind": "invalid_identity",
        "identity_kind": "weight",
        "value": " w",
        "reason": "identity contains a non-portable character",
    }
    for params in (
        {"identity_kind": "numerical profile", "value": "a"},
        {"identity_kind": "node", "value": 3},
        {"identity_kind": "node"},
    ):
        assert _call("check_identity", params)["failure"]["code"] == "bad_request"


def test_codecs() -> None:
    with pytest.raises(ProtocolError):
        ChoiceParam("k", ("a",)).decode(b'"b"')
    assert ChoiceParam("k", ("a",)).decode(b'"a"') == "a"
    with pytest.raises(ProtocolError):
        StringParam("v").decode(b"[]")
    with pytest.raises(ProtocolError):
        StringParam("v", max_bytes=8).decode(b'"' + b"x" * 20 + b'"')
    assert StringParam("v").decode(b'"\\u00e9"') == "\u00e9"
    with pytest.raises(Serialization) as info:
        DocumentParam("options", "decode compile options").decode(b"{,}")
    assert info.value.context == "decode compile options"
    assert EmptyResult().encode(None) == {} and EmptyResult().decode({}) is None
    with pytest.raises(ProtocolError):
        EmptyResult().decode({"x": 1})
    with pytest.raises(ProtocolError):
        EmptyResult().encode("x")
    SchemaCheck(enabled=True).result(OPERATIONS["check_identity"], {})
    with pytest.raises(ProtocolError):
        SchemaCheck(enabled=True).result(OPERATIONS["check_identity"], {"ok": True})


# ------------------------------------------------------------------ catalog-side operations (decision H-30)

CATALOG_OPERATIONS = ("decode_catalog", "lookup_engine_provider", "provider_compatibility")
REQUEST = {
    "operation_id": "operation.main",
    "required_version": {"major": 1, "minor": 0},
    "required_capabilities": [],
    "required_weight_formats": [],
    "required_quantization_formats": [],
    "execution_determinism": "bitwise_same_runtime",
}


def _wire_of(reply: dict[str, Any]) -> Any:
    return json.loads(base64.b64decode(reply["result"]["wire_base64"]))


def test_the_reference_declares_the_catalog_operations() -> None:
    assert set(CATALOG_OPERATIONS) <= set(api.supported_operations())
    assert all(OPERATIONS[op].level.label == "full" for op in CATALOG_OPERATIONS)


def test_decode_catalog_answers_the_fingerprint_and_keeps_the_last_map_value() -> None:
    scenario = seed_scenario("catalog")
    fingerprint = api.fingerprint_catalog(scenario)
    wire = api.direct_bytes(catalog().to_wire())
    assert _call("decode_catalog", OPERATIONS["decode_catalog"].encode_params((wire,))) == {
        "id": 1,
        "result": {"fingerprint": fingerprint},
    }
    engine = catalog().to_wire()["engine_providers"]["provider.engine.reference"]
    other = {**engine, "contract_version": {"major": 3, "minor": 0}}
    entry = b'"provider.engine.reference":' + api.direct_bytes(engine)
    earlier = b'"provider.engine.reference":' + api.direct_bytes(other) + b","
    assert api.decode_catalog(wire.replace(entry, earlier + entry)) == fingerprint
    assert api.decode_catalog(wire.replace(entry, entry + b"," + earlier[:-1])) != fingerprint
    for bad in (
        wire.replace(b'{"device":', b'{"device":{},"device":', 1),
        wire.replace(entry, earlier.replace(b'"major":3', b'"major":3,"major":3') + entry),
        wire.replace(entry, b'"provider.engine.reference":[],' + entry),
        wire.replace(
            b'"engine_providers":{"provider.engine.reference"', b'"engine_providers":{"provider.engine.other"'
        ),
        b"",
    ):
        error = _call("decode_catalog", OPERATIONS["decode_catalog"].encode_params((bad,)))["error"]
        assert (error["kind"], error["context"]) == ("serialization", "decode capability catalog"), bad[:60]


def test_lookup_engine_provider_answers_the_descriptor_or_the_contract_error() -> None:
    scenario = seed_scenario("engine")
    reply = _call(
        "lookup_engine_provider",
        {
            "scenario": scenario,
            "provider_id": "provider.engine.reference",
            "required_version": {"major": 1, "minor": 0},
        },
    )
    assert _wire_of(reply) == catalog().to_wire()["engine_providers"]["provider.engine.reference"]
    for provider_id, version, kind in (
        ("provider.engine.other", {"major": 1, "minor": 0}, "invalid_execution_plan"),
        ("provider.engine.reference", {"major": 1, "minor": 1}, "invalid_execution_plan"),
        ("", {"major": 1, "minor": 0}, "invalid_identity"),
        ("provider.engine.reference", {"major": -1, "minor": 0}, "serialization"),
    ):
        params = {"scenario": scenario, "provider_id": provider_id, "required_version": version}
        assert _call("lookup_engine_provider", params)["error"]["kind"] == kind
    assert (
        _call("lookup_engine_provider", {"scenario": scenario, "provider_id": 3, "required_version": {}})["failure"][
            "code"
        ]
        == "bad_request"
    )


def test_provider_compatibility_answers_the_report_with_the_extended_request() -> None:
    scenario = seed_scenario("compatibility")
    report = _wire_of(_call("provider_compatibility", {"scenario": scenario, "request": REQUEST}))
    assert report["request"]["required_capabilities"] == ["capability.compute"]
    assert report["compatible_provider_ids"] == ["provider.operation.reference"] and report["rejected"] == []
    rejected = _wire_of(
        _call(
            "provider_compatibility",
            {"scenario": scenario, "request": {**REQUEST, "required_quantization_formats": ["q.b", "q.a"]}},
        )
    )["rejected"]
    assert rejected == [
        {
            "provider_id": "provider.operation.reference",
            "reasons": [{"unsupported_quantization_formats": {"formats": ["q.a", "q.b"]}}],
        }
    ]
    error = _call("provider_compatibility", {"scenario": {}, "request": {**REQUEST, "x": 1}})["error"]
    assert (error["kind"], error["context"]) == ("serialization", "decode provider compatibility request")
    zero = {**REQUEST, "required_version": {"major": 0, "minor": 1}}
    assert _call("provider_compatibility", {"scenario": scenario, "request": zero})["error"]["kind"] == "serialization"
    unknown = _call("provider_compatibility", {"scenario": scenario, "request": {**REQUEST, "operation_id": "op.x"}})
    assert {k: unknown["error"][k] for k in ("kind", "node_id", "operation_id")} == {
        "kind": "unsupported_operation",
        "node_id": None,
        "operation_id": "op.x",
    }
