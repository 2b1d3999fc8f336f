"""Protocol lines (harness/PROTOCOL.md §1-§2): one JSON object per line, decoded strictly.

Request: ``{"id": u64, "op": str, "params": {...}}``.
Reply: ``{"id": u64, "result": {...}}`` | ``{"id": u64, "error": <VNextError object>}`` |
``{"id": u64|null, "failure": {"code": str, "message": str}}``.

Every line, whichever side wrote it, takes the same path: the line's size is bounded by the
reader, ``reference.json_scan`` locates the envelope members without building them (duplicate
and unknown members are refused), and each member is then decoded on its own with the
contract's strict decoder (depth, duplicates, ``-0``, integer range, UTF-8). The ``params``
object of a request is kept as member spans, so each parameter is decoded with its own cap and
rules by the operation's declaration.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import orjson

from reference.canonical import loads_strict
from reference.errors import Serialization, VNextError, error_from_dict
from reference.json_scan import Member, ScanError, root_members
from reference.wire import U64_MAX

__all__ = [
    "HANDSHAKE_ID",
    "HANDSHAKE_OP",
    "EnvelopeError",
    "FailureCode",
    "Reply",
    "Request",
    "clip",
    "decode_reply",
    "decode_request",
    "encode_failure",
    "encode_line",
    "encode_request",
]

HANDSHAKE_OP: Final = "handshake"
HANDSHAKE_ID: Final = 0
#: Envelope members are tiny; more than this many is refused before any is decoded.
_MAX_ENVELOPE_MEMBERS: Final = 8
_ENVELOPE_CONTEXT: Final = "decode protocol line"
#: Echoed values in messages are cut to this many characters.
_CLIP: Final = 200


class FailureCode(enum.StrEnum):
    """``failure.code``: not errors of the contract, but of the exchange (PROTOCOL.md §2)."""

    NOT_IMPLEMENTED = "not_implemented"
    BAD_REQUEST = "bad_request"
    HANDSHAKE_REQUIRED = "handshake_required"
    INTERNAL = "internal"


class EnvelopeError(ValueError):
    """A line that is not a protocol message; ``request_id`` when it could still be read."""

    def __init__(self, message: str, request_id: int | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


def clip(text: str, limit: int = _CLIP) -> str:
    """``text`` cut to ``limit`` characters, marking the cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _verbatim(value: Any) -> Any:
    fragment = getattr(value, "fragment", None)
    if fragment is None:
        raise TypeError(f"{type(value).__name__} is not a JSON value")
    return fragment()


def encode_line(message: Mapping[str, Any]) -> bytes:
    """One compact JSON line, newline-terminated; values with a ``fragment()`` are spliced verbatim."""
    return orjson.dumps(message, default=_verbatim, option=orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_APPEND_NEWLINE)


def encode_request(request_id: int, op: str, params: Mapping[str, Any]) -> bytes:
    return encode_line({"id": request_id, "op": op, "params": params})


def encode_failure(request_id: int | None, code: FailureCode, message: str) -> bytes:
    return encode_line({"id": request_id, "failure": {"code": code.value, "message": clip(message, 2000)}})


@dataclass(frozen=True, slots=True)
class _Members:
    """The members of one JSON object: decoded key -> raw value span."""

    data: bytes
    spans: Mapping[str, Member]

    def raw(self, key: str) -> bytes:
        span = self.spans[key]
        return self.data[span.start : span.end]

    def depth(self, key: str) -> int:
        """The nesting depth of the member's value, measured by the scan."""
        return self.spans[key].depth

    def value(self, key: str, *, context: str, max_bytes: int | None = None) -> Any:
        return loads_strict(self.raw(key), context=context, max_bytes=max_bytes, depth=self.depth(key))


def _members(data: bytes, *, what: str, max_members: int, request_id: int | None = None) -> _Members:
    """Locate and key the members of the object ``data`` (keys decoded strictly, no repeats)."""
    try:
        found = root_members(data, max_members=max_members)
    except ScanError as exc:
        raise EnvelopeError(f"{what} is not a JSON object: {exc}", request_id) from None
    spans: dict[str, Member] = {}
    for member in found:
        try:
            key = loads_strict(member.key, context=_ENVELOPE_CONTEXT)
        except Serialization as exc:
            raise EnvelopeError(f"{what} has a malformed key: {exc.message_text}", request_id) from None
        if not isinstance(key, str):
            raise EnvelopeError(f"{what} has a key that is not a string", request_id)
        if key in spans:
            raise EnvelopeError(f"{what} repeats the key {clip(repr(key))}", request_id)
        spans[key] = member
    return _Members(data, spans)


def _exact(members: _Members, keys: tuple[str, ...], what: str, request_id: int | None) -> None:
    if set(members.spans) != set(keys):
        got = sorted(clip(key, 40) for key in members.spans)
        raise EnvelopeError(f"{what} must have exactly the keys {list(keys)}, got {got}", request_id)


def _request_id(members: _Members, *, null_allowed: bool) -> int | None:
    try:
        value = members.value("id", context=_ENVELOPE_CONTEXT)
    except Serialization as exc:
        raise EnvelopeError(f"id: {exc.message_text}") from None
    if value is None and null_allowed:
        return None
    if type(value) is not int or not 0 <= value <= U64_MAX:
        raise EnvelopeError("id must be an integer in 0..=2^64-1" + (" or null" if null_allowed else ""))
    return value


@dataclass(frozen=True, slots=True)
class Request:
    """A decoded request: id, operation name and the raw members of ``params``."""

    request_id: int
    op: str
    params: _Members

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(self.params.spans)


def decode_request(line: bytes) -> Request:
    """The request on ``line`` (size already bounded by the reader); ``EnvelopeError`` otherwise."""
    members = _members(line, what="request", max_members=_MAX_ENVELOPE_MEMBERS)
    if "id" not in members.spans:
        raise EnvelopeError("request has no id")
    request_id = _request_id(members, null_allowed=False)
    _exact(members, ("id", "op", "params"), "request", request_id)
    try:
        op = members.value("op", context=_ENVELOPE_CONTEXT, max_bytes=1024)
    except Serialization as exc:
        raise EnvelopeError(f"op: {exc.message_text}", request_id) from None
    if not isinstance(op, str):
        raise EnvelopeError("op must be a string", request_id)
    params = _members(members.raw("params"), what="params", max_members=64, request_id=request_id)
    assert request_id is not None
    return Request(request_id, op, params)


@dataclass(frozen=True, slots=True)
class Reply:
    """A decoded reply; ``body`` is the result object, the error object or the failure object."""

    request_id: int | None
    kind: Literal["result", "error", "failure"]
    body: dict[str, Any]

    def error(self) -> VNextError:
        """The contract error of an ``error`` reply; ``EnvelopeError`` if it is not a valid error object."""
        try:
            return error_from_dict(self.body)
        except Serialization as exc:
            raise EnvelopeError(f"invalid error object: {clip(exc.message_text)}") from None

    def failure(self) -> tuple[str, str]:
        """``(code, message)`` of a ``failure`` reply."""
        return str(self.body["code"]), str(self.body["message"])


_BODIES: Final = ("result", "error", "failure")


def decode_reply(line: bytes) -> Reply:
    """The reply on ``line`` (size already bounded by the reader); ``EnvelopeError`` otherwise."""
    members = _members(line, what="reply", max_members=_MAX_ENVELOPE_MEMBERS)
    bodies = [key for key in _BODIES if key in members.spans]
    if "id" not in members.spans or len(bodies) != 1 or len(members.spans) != 2:
        got = sorted(clip(key, 40) for key in members.spans)
        raise EnvelopeError(f"reply must have id and exactly one of result, error, failure; got keys {got}")
    kind: Literal["result", "error", "failure"] = bodies[0]  # type: ignore[assignment]
    request_id = _request_id(members, null_allowed=True)
    if request_id is None and kind != "failure":
        raise EnvelopeError("only a failure reply may carry a null id")
    try:
        body = members.value(kind, context=_ENVELOPE_CONTEXT)
    except Serialization as exc:
        raise EnvelopeError(f"reply {kind}: {clip(exc.message_text)}", request_id) from None
    if not isinstance(body, dict):
        raise EnvelopeError(f"reply {kind} must be a JSON object", request_id)
    if kind == "failure":
        code, message = body.get("code"), body.get("message")
        if set(body) != {"code", "message"} or not isinstance(code, str) or not isinstance(message, str):
            raise EnvelopeError("failure must be {code: string, message: string}", request_id)
    return Reply(request_id, kind, body)
