"""Protocol framing, operation codecs, the server loop and the protocol schemas."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from harness import operations
from harness.backends.reference import ReferenceBackend
from harness.protocol import ReplyError, RequestError, encode_failure, parse_reply, parse_request, protocol_compatible
from harness.serve import serve
from reference import api
from reference.canonical import sha256_hex

from .fake_backends import FullFake

HANDSHAKE = {
    "id": 0,
    "op": "handshake",
    "params": {
        "protocol": {"major": 1, "minor": 0},
        "suite": {"name": "t", "version": "0"},
        "contract": {
            "crate": "ferrum-interfaces",
            "version": "0.12.2",
            "module": "vnext",
            "plan_schema": {"major": 8, "minor": 1},
        },
    },
}


def converse(backend: Any, *lines: bytes | dict[str, Any], max_request_bytes: int = 1 << 20) -> list[dict[str, Any]]:
    data = b"".join(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n" for line in lines)
    out = io.BytesIO()
    log = io.StringIO()
    assert serve(backend, io.BytesIO(data), out, max_request_bytes=max_request_bytes, log=log) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


# ------------------------------------------------------------------ codecs


@given(st.binary(max_size=300))
def test_base64_roundtrip_is_exact(data: bytes) -> None:
    assert operations.b64decode_exact(operations.b64encode(data), what="x") == data


@pytest.mark.parametrize("text", ["A", "AB=", "AB==A", "ABC*", "AB\n==", "QQ", "QR==", 5, None, "Zg==\n"])
def test_base64_decoder_refuses_non_canonical_text(text: Any) -> None:
    with pytest.raises(operations.ProtocolError):
        operations.b64decode_exact(text, what="x")


sha = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@given(wire=st.binary(max_size=200), fp=sha)
def test_result_codecs_roundtrip_and_match_the_schemas(wire: bytes, fp: str) -> None:
    values = {
        "prepare_family": api.PreparedFamily(wire, fp),
        "fingerprint_catalog": fp,
        "build_plan": wire,
        "revalidate": fp,
        "select_weight_plan": api.WeightPlanSelection(wire, fp),
        "describe": ReferenceBackend().describe(),
    }
    for op, value in values.items():
        encoded = operations.encode_result(op, value)
        schemas.validator("protocol/operations.json").evolve(
            schema={"$ref": f"urn:vnext-conformance:schema:protocol/operations.json#/$defs/{op}_result"}
        ).validate(encoded)
        assert operations.decode_result(op, encoded) == value


def _def_validator(name: str) -> Any:
    return schemas.validator("protocol/operations.json").evolve(
        schema={"$ref": f"urn:vnext-conformance:schema:protocol/operations.json#/$defs/{name}"}
    )


@pytest.mark.parametrize(
    ("op", "raw"),
    [
        ("build_plan", {}),
        ("build_plan", {"wire_base64": "AA==", "extra": 1}),
        ("build_plan", {"wire_base64": "A"}),
        ("revalidate", {"plan_hash": "A" * 64}),
        ("revalidate", {"plan_hash": "a" * 63}),
        ("fingerprint_catalog", {"fingerprint": 7}),
        ("prepare_family", {"wire_base64": "", "fingerprint": "g" * 64}),
        ("select_weight_plan", {"wire_base64": ""}),
        ("describe", {"implementation": {}}),
        ("build_plan", []),
    ],
)
def test_malformed_results_are_refused_by_codec_and_schema(op: str, raw: Any) -> None:
    with pytest.raises(operations.ProtocolError):
        operations.decode_result(op, raw)
    assert not _def_validator(f"{op}_result").is_valid(raw)


@pytest.mark.parametrize(
    ("op", "raw"),
    [
        ("build_plan", {}),
        ("build_plan", {"scenario": []}),
        ("build_plan", {"scenario": {}, "x": 1}),
        ("revalidate", {"scenario": {}}),
        ("revalidate", {"scenario": {}, "wire_base64": "%%%"}),
        ("describe", {"x": 1}),
    ],
)
def test_malformed_params_are_refused_by_codec_and_schema(op: str, raw: Any) -> None:
    with pytest.raises(operations.ProtocolError):
        operations.decode_params(op, raw)
    assert not _def_validator(f"{op}_params").is_valid(raw)


def test_unknown_operation_is_a_protocol_error() -> None:
    with pytest.raises(operations.ProtocolError):
        operations.encode_params("teleport")


# ------------------------------------------------------------------ framing


def test_parse_request_and_reply() -> None:
    assert parse_request(b'{"id":3,"op":"describe","params":{}}') == (3, "describe", {})
    reply = parse_reply(b'{"id":3,"error":{"kind":"invalid_execution_plan","reason":"r","message":"m"}}')
    assert reply.kind == "error" and reply.error().kind == "invalid_execution_plan"
    failure = parse_reply(encode_failure(None, "bad_request", "x").strip())
    assert failure.request_id is None and failure.kind == "failure"


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"[]",
        b"nope",
        b'{"id":-1,"op":"x","params":{}}',
        b'{"id":1,"op":"x"}',
        b'{"id":1,"op":2,"params":{}}',
        b'{"id":1,"op":"x","params":[]}',
        b'{"id":1.0,"op":"x","params":{}}',
        b'{"id":true,"op":"x","params":{}}',
    ],
)
def test_bad_requests(line: bytes) -> None:
    with pytest.raises(RequestError):
        parse_request(line)


@pytest.mark.parametrize(
    "line",
    [
        b"x",
        b"[]",
        b'{"id":1}',
        b'{"id":1,"result":{},"error":{}}',
        b'{"id":null,"result":{}}',
        b'{"id":1,"result":[]}',
        b'{"id":1,"failure":{"code":"x"}}',
        b'{"id":-2,"result":{}}',
        b'{"result":{}}',
    ],
)
def test_bad_replies(line: bytes) -> None:
    with pytest.raises(ReplyError):
        parse_reply(line)
    if line.startswith(b"{"):
        assert not schemas.validator("protocol/reply.json").is_valid(json.loads(line))


def test_invalid_error_object_is_a_reply_error() -> None:
    with pytest.raises(ReplyError):
        parse_reply(b'{"id":1,"error":{"kind":"nope"}}').error()


@pytest.mark.parametrize(
    ("raw", "ok"),
    [
        ({"major": 1, "minor": 0}, True),
        ({"major": 1, "minor": 7}, True),
        ({"major": 2, "minor": 0}, False),
        ({"major": 1}, False),
        ({"major": 1, "minor": 0, "x": 1}, False),
        ({"major": True, "minor": 0}, False),
        (None, False),
    ],
)
def test_protocol_compatibility_is_same_major(raw: Any, ok: bool) -> None:
    assert protocol_compatible(raw) is ok


# ------------------------------------------------------------------ server


def test_serve_answers_every_message_kind_and_messages_match_the_schemas() -> None:
    wire = b"\x00\xffplan"
    replies = converse(
        FullFake(),
        {"id": 1, "op": "describe", "params": {}},  # before the handshake
        HANDSHAKE,
        {"id": 2, "op": "build_plan", "params": {"scenario": {"a": 1}}},
        {"id": 3, "op": "revalidate", "params": {"scenario": {}, "wire_base64": base64.b64encode(wire).decode()}},
        {
            "id": 4,
            "op": "build_plan",
            "params": {"scenario": {"raise": {"kind": "invalid_execution_plan", "reason": "r"}}},
        },
        {"id": 5, "op": "build_plan", "params": {"scenario": {"unsupported": True}}},
        {"id": 6, "op": "build_plan", "params": {"scenario": {"crash": True}}},
        {"id": 7, "op": "teleport", "params": {}},
        {"id": 8, "op": "build_plan", "params": {"scenario": []}},
        b"not json\n",
        b"\n",
        {"id": 9, "op": "describe", "params": {}},
    )
    assert [r["id"] for r in replies] == [1, 0, 2, 3, 4, 5, 6, 7, 8, None, 9]
    assert replies[0]["failure"]["code"] == "handshake_required"
    assert replies[1]["result"]["backend"]["implementation"]["name"] == "fake-full"
    assert replies[1]["result"]["max_request_bytes"] == 1 << 20
    assert base64.b64decode(replies[2]["result"]["wire_base64"]) == FullFake().build_plan({"a": 1})
    assert replies[3]["result"]["plan_hash"] == sha256_hex(wire + b"{}")
    assert replies[4]["error"] == {
        "kind": "invalid_execution_plan",
        "reason": "r",
        "message": "invalid_execution_plan: reason='r'",
    }
    assert [replies[i]["failure"]["code"] for i in (5, 6, 7, 8, 9)] == [
        "not_implemented",
        "internal",
        "not_implemented",
        "bad_request",
        "bad_request",
    ]
    assert "fake backend bug" in replies[6]["failure"]["message"]
    reply_schema = schemas.validator("protocol/reply.json")
    for reply in replies:
        reply_schema.validate(reply)
    schemas.validator("protocol/handshake.json").evolve(
        schema={"$ref": "urn:vnext-conformance:schema:protocol/handshake.json#/$defs/result"}
    ).validate(replies[1]["result"])
    schemas.validate("protocol/request.json", HANDSHAKE)


def test_serve_refuses_oversized_lines_and_keeps_serving() -> None:
    big = json.dumps({"id": 1, "op": "build_plan", "params": {"scenario": {"x": "y" * 5000}}}).encode() + b"\n"
    replies = converse(FullFake(), HANDSHAKE, big, {"id": 2, "op": "describe", "params": {}}, max_request_bytes=2048)
    assert replies[1] == {"id": None, "failure": {"code": "bad_request", "message": "request line exceeds 2048 bytes"}}
    assert replies[2]["id"] == 2 and "result" in replies[2]


def test_serve_rejects_a_handshake_with_another_protocol_major() -> None:
    bad = json.loads(json.dumps(HANDSHAKE))
    bad["params"]["protocol"] = {"major": 2, "minor": 0}
    replies = converse(FullFake(), bad, {"id": 1, "op": "describe", "params": {}})
    assert replies[0]["failure"]["code"] == "bad_request"
    assert replies[1]["failure"]["code"] == "handshake_required"


def test_serve_reference_declares_only_implemented_operations() -> None:
    replies = converse(ReferenceBackend(), HANDSHAKE)
    assert tuple(replies[0]["result"]["backend"]["operations"]) == api.supported_operations()


@pytest.mark.parametrize("op", [op for op in operations.OPERATION_SPECS if op != "describe"])
def test_every_request_shape_matches_the_request_schema(op: str) -> None:
    params = (
        operations.encode_params(op, {"s": 1}, b"w") if op == "revalidate" else operations.encode_params(op, {"s": 1})
    )
    schemas.validate("protocol/request.json", {"id": 12, "op": op, "params": params})
    assert not schemas.validator("protocol/request.json").is_valid({"id": 12, "op": op, "params": {}})
