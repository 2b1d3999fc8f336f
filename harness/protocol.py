"""Framing of the JSON-lines protocol (harness/PROTOCOL.md): one JSON object per line.

Request: ``{"id": u64, "op": str, "params": {...}}``.
Reply: ``{"id": u64, "result": {...}}`` | ``{"id": u64, "error": <VNextError object>}`` |
``{"id": u64|null, "failure": {"code": str, "message": str}}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

import orjson

from harness.contract import PROTOCOL_VERSION
from reference.errors import Serialization, VNextError, error_from_dict

__all__ = [
    "FAILURE_CODES",
    "HANDSHAKE_ID",
    "HANDSHAKE_OP",
    "Reply",
    "RequestError",
    "encode_failure",
    "encode_line",
    "encode_request",
    "parse_reply",
    "parse_request",
    "protocol_compatible",
]

HANDSHAKE_OP: Final = "handshake"
HANDSHAKE_ID: Final = 0
_U64_MAX: Final = 2**64 - 1

#: ``failure.code`` values: not errors of the contract, but of the exchange.
FAILURE_CODES: Final = {
    "not_implemented": "the backend does not implement this operation",
    "bad_request": "the request line or its params are malformed",
    "handshake_required": "the first request must be the handshake",
    "internal": "the backend failed for a reason outside the contract",
}


class RequestError(ValueError):
    """A request line the server cannot serve; ``request_id`` when it could be read."""

    def __init__(self, request_id: int | None, code: str, message: str) -> None:
        super().__init__(message)
        self.request_id = request_id
        self.code = code


class ReplyError(ValueError):
    """A reply line that is not a protocol reply."""


@dataclass(frozen=True, slots=True)
class Reply:
    """A parsed reply; ``body`` is the result object, the error object or the failure object."""

    request_id: int | None
    kind: Literal["result", "error", "failure"]
    body: dict[str, Any]

    def error(self) -> VNextError:
        """The contract error of an ``error`` reply; ``ReplyError`` if it is not a valid error object."""
        try:
            return error_from_dict(self.body)
        except Serialization as exc:
            raise ReplyError(f"invalid error object: {exc.message_text}") from None


def encode_line(message: dict[str, Any]) -> bytes:
    """One compact JSON line, newline-terminated."""
    return orjson.dumps(message) + b"\n"


def encode_request(request_id: int, op: str, params: dict[str, Any]) -> bytes:
    return encode_line({"id": request_id, "op": op, "params": params})


def encode_failure(request_id: int | None, code: str, message: str) -> bytes:
    if code not in FAILURE_CODES:
        raise ValueError(f"unknown failure code {code!r}")
    return encode_line({"id": request_id, "failure": {"code": code, "message": message}})


def _is_id(value: Any) -> bool:
    return type(value) is int and 0 <= value <= _U64_MAX


def parse_request(line: bytes) -> tuple[int, str, dict[str, Any]]:
    """``(id, op, params)`` of a request line, or ``RequestError``."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise RequestError(None, "bad_request", f"request is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise RequestError(None, "bad_request", "request must be a JSON object")
    request_id: Any = raw.get("id")
    if not _is_id(request_id):
        raise RequestError(None, "bad_request", "request id must be an integer in 0..=2^64-1")
    if set(raw) != {"id", "op", "params"}:
        raise RequestError(request_id, "bad_request", f"request keys must be id, op, params; got {sorted(raw)}")
    op, params = raw["op"], raw["params"]
    if not isinstance(op, str):
        raise RequestError(request_id, "bad_request", "op must be a string")
    if not isinstance(params, dict):
        raise RequestError(request_id, "bad_request", "params must be a JSON object")
    return int(request_id), op, params


def parse_reply(line: bytes) -> Reply:
    """A reply line as ``Reply``; ``ReplyError`` when it is not one."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ReplyError(f"reply is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise ReplyError("reply must be a JSON object")
    bodies = [key for key in ("result", "error", "failure") if key in raw]
    if "id" not in raw or len(bodies) != 1 or len(raw) != 2:
        raise ReplyError(f"reply must have id and exactly one of result, error, failure; got keys {sorted(raw)}")
    kind: Literal["result", "error", "failure"] = bodies[0]  # type: ignore[assignment]
    request_id = raw["id"]
    if request_id is not None and not _is_id(request_id):
        raise ReplyError("reply id must be an integer in 0..=2^64-1 or null")
    if request_id is None and kind != "failure":
        raise ReplyError("only a failure reply may carry a null id")
    body = raw[kind]
    if not isinstance(body, dict):
        raise ReplyError(f"reply {kind} must be a JSON object")
    if kind == "failure":
        code, message = body.get("code"), body.get("message")
        if set(body) != {"code", "message"} or not isinstance(code, str) or not isinstance(message, str):
            raise ReplyError("failure must be {code: string, message: string}")
    return Reply(request_id, kind, body)


def protocol_compatible(raw: Any) -> bool:
    """True iff ``raw`` is a protocol version object with our major (minor may differ)."""
    return (
        isinstance(raw, dict)
        and set(raw) == {"major", "minor"}
        and raw.get("major") == PROTOCOL_VERSION.major
        and type(raw.get("major")) is int
        and type(raw.get("minor")) is int
        and 0 <= raw["minor"] <= 0xFFFF
    )
