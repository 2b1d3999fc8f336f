"""revalidate_family, compile_plan and check_identity over the protocol (decision H-22)."""

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
