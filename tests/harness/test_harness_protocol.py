"""The protocol layer: declarations, codecs, strict envelopes, the server, and the protocol schemas."""

from __future__ import annotations

import base64
import io
import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from harness.backends.reference import ReferenceImplementation
from harness.protocol.codecs import ProtocolError, RawJson, b64encode
from harness.protocol.envelope import (
    EnvelopeError,
    FailureCode,
    decode_reply,
    decode_request,
    encode_failure,
    encode_line,
    encode_request,
)
from harness.protocol.handshake import protocol_compatible
from harness.protocol.operations import OPERATIONS, Level, Operations
from harness.protocol.server import Server, serve_stream
from harness.protocol.validation import SchemaCheck
from reference import api
from reference.canonical import sha256_hex
from reference.wire import read_base64

from .fake_backends import FullFake, make_describe_only
from .helpers import ROOT

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
    server = Server(backend, max_request_bytes=max_request_bytes, check=SchemaCheck(enabled=True), log=io.StringIO())
    assert serve_stream(server, io.BytesIO(data), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _params(op: str, *args: Any) -> dict[str, Any]:
    declared = OPERATIONS[op]
    return declared.encode_params(declared.bind(args, {}))


# ------------------------------------------------------------------ declarations


def test_each_operation_is_declared_once_with_its_schema() -> None:
    names = [name for name in vars(Operations) if not name.startswith("_") and name != "call"]
    assert names == list(OPERATIONS), "every public method of Operations is a declared operation, in order"
    declared_files = {path.stem for path in (ROOT / "schemas/protocol/operations").glob("*.json")}
    assert declared_files == set(OPERATIONS)
    for name, declared in OPERATIONS.items():
        document = schemas.load(declared.schema)
        assert set(document["$defs"]) == {"params", "result"}, name
        params = document["$defs"]["params"]
        assert params["required"] == [param.name for param in declared.params], name
        assert declared.summary and declared.level in Level


def test_levels_are_cumulative() -> None:
    assert [op for op, d in OPERATIONS.items() if d.level is Level.DESCRIBE] == ["describe"]
    assert [op for op, d in OPERATIONS.items() if d.level is Level.PLANNING] == ["build_plan", "revalidate"]
    assert Level.PLANNING.operations() == ("describe", "build_plan", "revalidate")
    assert Level.reached(["describe"]) is Level.DESCRIBE and Level.reached([]) is None
    assert Level.reached(list(OPERATIONS)) is Level.RUNTIME
    assert OPERATIONS["execute"].level is Level.RUNTIME
    assert [op for op, d in OPERATIONS.items() if d.mandatory] == ["describe"]


def test_operation_names_appear_only_in_their_declaration_and_reference_implementation() -> None:
    """The harness outside the protocol declaration never spells an operation name, so adding an
    operation touches its declaration, schema, reference implementation and suite only. (The command
    line's command names ``describe`` and ``revalidate`` are its own vocabulary, not a dispatch.)"""
    offenders = []
    for path in sorted((ROOT / "harness").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative in ("harness/protocol/operations.py", "harness/options.py") or relative.startswith(
            ("harness/cli/", "harness/examples/")
        ):
            continue
        text = path.read_text(encoding="utf-8")
        for name in OPERATIONS:
            # ``describe`` and ``execute`` are also English words: only a quoted name counts
            pattern = rf"[\"']{name}[\"']" if name in ("describe", "execute") else rf"\b{name}\b"
            if re.search(pattern, text):
                offenders.append(f"{relative}: {name}")
    assert not offenders


# ------------------------------------------------------------------ codecs


@given(st.binary(max_size=300))
def test_base64_roundtrip_is_exact(data: bytes) -> None:
    assert read_base64(b64encode(data), context="c", path="x") == data


@pytest.mark.parametrize("text", ["A", "AB=", "AB==A", "ABC*", "AB\n==", "QQ", "QR==", 5, None, "Zg==\n"])
def test_base64_decoder_refuses_non_canonical_text(text: Any) -> None:
    with pytest.raises(ProtocolError):
        OPERATIONS["revalidate"].params[1].decode(json.dumps(text).encode())


sha = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@given(wire=st.binary(max_size=200), fp=sha)
def test_result_codecs_roundtrip_and_match_the_schemas(wire: bytes, fp: str) -> None:
    values = {
        "prepare_family": api.PreparedFamily(wire, fp),
        "fingerprint_catalog": fp,
        "build_plan": wire,
        "revalidate": fp,
        "select_weight_plan": api.WeightPlanSelection(wire, fp),
        "describe": ReferenceImplementation().describe(),
    }
    check = SchemaCheck(enabled=True)
    for op, value in values.items():
        encoded = OPERATIONS[op].encode_result(value)
        check.result(OPERATIONS[op], encoded)
        assert OPERATIONS[op].decode_result(encoded) == value


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
    with pytest.raises(ProtocolError, match=op):
        OPERATIONS[op].decode_result(raw)
    with pytest.raises(ProtocolError):
        SchemaCheck(enabled=True).result(OPERATIONS[op], raw)


@pytest.mark.parametrize(
    ("op", "raw"),
    [
        ("build_plan", {}),
        ("build_plan", {"scenario": {}, "x": 1}),
        ("revalidate", {"scenario": {}}),
        ("revalidate", {"scenario": {}, "wire_base64": "%%%"}),
        ("describe", {"x": 1}),
        ("execute", {"scenario": {}, "inputs": {}, "replays": -1}),
        ("execute", {"scenario": {}, "inputs": [], "replays": 1}),
    ],
)
def test_malformed_params_are_refused(op: str, raw: Any) -> None:
    with pytest.raises(ProtocolError):
        OPERATIONS[op].check_params(raw)


def test_raw_json_scenarios_cross_verbatim() -> None:
    text = b'{ "b" : 1,\n "a": [ ] }'
    sent = encode_request(1, "build_plan", _params("build_plan", RawJson(text)))
    assert text in sent
    request = decode_request(sent)
    assert OPERATIONS["build_plan"].decode_params(request) == ({"b": 1, "a": []},)


# ------------------------------------------------------------------ envelopes


def test_decode_request_and_reply() -> None:
    request = decode_request(b'{"id":3,"op":"describe","params":{}}')
    assert (request.request_id, request.op, request.keys) == (3, "describe", frozenset())
    reply = decode_reply(b'{"id":3,"error":{"kind":"invalid_execution_plan","reason":"r","message":"m"}}')
    assert reply.kind == "error" and reply.error().kind == "invalid_execution_plan"
    failure = decode_reply(encode_failure(None, FailureCode.BAD_REQUEST, "x").strip())
    assert failure.request_id is None and failure.kind == "failure"


@pytest.mark.parametrize(
    ("line", "request_id"),
    [
        (b"", None),
        (b"[]", None),
        (b"nope", None),
        (b'{"id":-1,"op":"x","params":{}}', None),
        (b'{"id":-0,"op":"x","params":{}}', None),
        (b'{"id":1,"op":"x"}', 1),
        (b'{"id":1,"op":2,"params":{}}', 1),
        (b'{"id":1,"op":"x","params":[]}', 1),
        (b'{"id":1.0,"op":"x","params":{}}', None),
        (b'{"id":true,"op":"x","params":{}}', None),
        (b'{"id":1,"id":2,"op":"x","params":{}}', None),
        (b'{"id":1,"op":"frobnicate","op":"describe","params":{}}', None),
        (b'{"id":1,"op":"x","params":{"scenario":{},"scenario":{}}}', 1),
        (b'{"id":1,"op":"x","params":{}} trailing', None),
        (b'{"id":1,"op":"x","params":{},}', None),
        (b'\xef\xbb\xbf{"id":1,"op":"x","params":{}}', None),
        (b'{"id":1,"op":"x\xff","params":{}}', 1),
        (b'{"id":18446744073709551616,"op":"x","params":{}}', None),
    ],
)
def test_bad_requests_are_envelope_errors(line: bytes, request_id: int | None) -> None:
    with pytest.raises(EnvelopeError) as info:
        decode_request(line)
    assert info.value.request_id == request_id


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
        b'{"id":1,"result":{},"result":{}}',
        b'{"id":1,"result":{"a":1,"a":1}}',
        b'{"id":1,"result":{"x":-0}}',
        b'{"id":1,"result":' + b"[" * 990 + b"]" * 990 + b"}",
        b'{"id":1,"error":' + b"{" * 200 + b"}" * 200 + b"}",
    ],
)
def test_bad_replies_are_envelope_errors(line: bytes) -> None:
    with pytest.raises(EnvelopeError):
        decode_reply(line)


def test_invalid_error_object_is_an_envelope_error() -> None:
    with pytest.raises(EnvelopeError):
        decode_reply(b'{"id":1,"error":{"kind":"nope"}}').error()


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
        {"id": 8, "op": "build_plan", "params": {"scenario": {}, "extra": 1}},
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
    schemas.validator("protocol/handshake.json#/$defs/result").validate(replies[1]["result"])
    schemas.validate("protocol/request.json", HANDSHAKE)


def test_a_malformed_scenario_is_answered_with_the_contract_error() -> None:
    """Whatever JSON arrives as the scenario, the reference answers with ``serialization``/``decode scenario``."""
    cases = [
        b'{"id":1,"op":"build_plan","params":{"scenario":[]}}',
        b'{"id":2,"op":"build_plan","params":{"scenario":{"a":1,"a":2}}}',
        b'{"id":3,"op":"build_plan","params":{"scenario":{"a":-0}}}',
        b'{"id":4,"op":"build_plan","params":{"scenario":' + b"[" * 128 + b"]" * 128 + b"}}",
        b'{"id":5,"op":"build_plan","params":{"scenario":' + b"[" * 127 + b"]" * 127 + b"}}",
        b'{"id":6,"op":"build_plan","params":{"scenario":{"x":' + b"[" * 126 + b"]" * 126 + b"}}}",
        b'{"id":7,"op":"build_plan","params":{"scenario":"\\ud800"}}',
    ]
    replies = converse(ReferenceImplementation(), HANDSHAKE, *(line + b"\n" for line in cases))
    for reply in replies[1:]:
        assert reply["error"]["kind"] == "serialization", reply
        assert reply["error"]["context"] == "decode scenario", reply


def test_an_over_cap_scenario_is_refused_before_it_is_parsed() -> None:
    scenario = b'{"scenario_version":1,"pad":[' + b"{}," * (6 * 1024 * 1024) + b"{}]}"
    line = b'{"id":1,"op":"build_plan","params":{"scenario":' + scenario + b"}}\n"
    replies = converse(ReferenceImplementation(), HANDSHAKE, line, max_request_bytes=64 << 20)
    assert replies[1]["error"]["kind"] == "serialization"
    assert "exceeds" in replies[1]["error"]["message"]


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
    replies = converse(ReferenceImplementation(), HANDSHAKE)
    assert tuple(replies[0]["result"]["backend"]["operations"]) == api.supported_operations()


def test_a_server_never_answers_an_undeclared_operation_even_if_the_object_has_it() -> None:
    replies = converse(make_describe_only(), HANDSHAKE, {"id": 1, "op": "build_plan", "params": {"scenario": {}}})
    assert replies[1]["failure"]["code"] == "not_implemented"


@pytest.mark.parametrize("op", [name for name, declared in OPERATIONS.items() if not declared.mandatory])
def test_every_request_matches_the_request_schema_and_its_params_schema(op: str) -> None:
    special: dict[str, tuple[Any, ...]] = {
        "revalidate": ({"s": 1}, b"w"),
        "revalidate_family": ({"s": 1}, b"w"),
        "compile_plan": ({"s": 1}, {"o": 1}),
        "check_identity": ("node", "node.a"),
        "device_runtime_script": ({"s": 1}, [{"op": "runtime_enums"}]),
        "decode_catalog": (b"w",),
        "lookup_engine_provider": ({"s": 1}, "provider.a", {"major": 1, "minor": 0}),
        "provider_compatibility": ({"s": 1}, {"r": 1}),
    }
    args = special.get(op, ({"s": 1},))
    params = _params(op, *args)
    schemas.validate("protocol/request.json", {"id": 12, "op": op, "params": params})
    SchemaCheck(enabled=True).params_object(OPERATIONS[op], params)
    with pytest.raises(ProtocolError):
        SchemaCheck(enabled=True).params_object(OPERATIONS[op], {})


def test_served_lines_never_contain_a_raw_newline() -> None:
    replies = converse(FullFake(), HANDSHAKE, {"id": 1, "op": "build_plan", "params": {"scenario": {"k": "a\nb"}}})
    assert len(replies) == 2


@pytest.mark.parametrize("line", [b"", b"\n", b" \t\r\n", b"\x0b\x0c ", b" " * 100_000])
def test_a_line_of_ascii_whitespace_is_ignored(line: bytes) -> None:
    server = Server(ReferenceImplementation(), max_request_bytes=1 << 20, check=SchemaCheck(enabled=True))
    assert server.handle(line) is None


@pytest.mark.parametrize("line", [b" x", b"\xa0", b"  {}\n"])
def test_a_line_with_anything_else_is_answered(line: bytes) -> None:
    server = Server(ReferenceImplementation(), max_request_bytes=1 << 20, check=SchemaCheck(enabled=True))
    assert server.handle(line) is not None


def test_every_encoded_line_ends_with_one_newline() -> None:
    line = encode_line({"id": 1, "result": {"text": "a\nb"}})
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and json.loads(line) == {"id": 1, "result": {"text": "a\nb"}}
