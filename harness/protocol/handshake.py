"""The handshake (harness/PROTOCOL.md §4): protocol versions, the backend's request cap and description."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from harness.protocol.codecs import ProtocolError
from harness.protocol.description import BackendDescription
from harness.protocol.envelope import Request
from reference.canonical import loads_strict
from reference.errors import Serialization
from reference.versions import ContractVersion
from reference.wire import U16_MAX, U64_MAX

__all__ = ["PROTOCOL_VERSION", "HandshakeParams", "HandshakeResult", "protocol_compatible"]

#: The harness protocol version. Backends must speak the same major.
PROTOCOL_VERSION: Final = ContractVersion(1, 0)
_KEYS: Final = ("protocol", "suite", "contract")
_CONTEXT: Final = "decode handshake"
_MIN_REQUEST_CAP: Final = 1024


def protocol_compatible(raw: Any) -> bool:
    """True iff ``raw`` is a ``{major, minor}`` object with our major (any minor)."""
    return (
        isinstance(raw, dict)
        and set(raw) == {"major", "minor"}
        and type(raw["major"]) is int
        and type(raw["minor"]) is int
        and raw["major"] == PROTOCOL_VERSION.major
        and 0 <= raw["minor"] <= U16_MAX
    )


@dataclass(frozen=True, slots=True)
class HandshakeParams:
    """What the harness announces: its protocol version, suite and contract identity."""

    protocol: Any
    suite: Mapping[str, Any]
    contract: Mapping[str, Any]

    def to_wire(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "suite": dict(self.suite), "contract": dict(self.contract)}

    @classmethod
    def decode(cls, request: Request) -> HandshakeParams:
        if request.keys != frozenset(_KEYS):
            raise ProtocolError(f"handshake params must have exactly the keys {list(_KEYS)}")
        try:
            values = [loads_strict(request.params.raw(key), context=_CONTEXT, max_bytes=1 << 16) for key in _KEYS]
        except Serialization as exc:
            raise ProtocolError(f"handshake params: {exc.message_text}") from None
        protocol, suite, contract = values
        if not isinstance(suite, dict) or not isinstance(contract, dict):
            raise ProtocolError("handshake params suite and contract must be objects")
        return cls(protocol, suite, contract)

    def compatible(self) -> bool:
        return protocol_compatible(self.protocol)

    def incompatibility(self) -> str:
        return f"unsupported protocol {repr(self.protocol)[:80]}; this server speaks {PROTOCOL_VERSION}"


@dataclass(frozen=True, slots=True)
class HandshakeResult:
    """What the backend answers: the request cap it accepts (``None``: no limit) and its description."""

    max_request_bytes: int | None
    backend: BackendDescription
    protocol: Any = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL_VERSION.to_wire() if self.protocol is None else self.protocol,
            "max_request_bytes": self.max_request_bytes,
            "backend": self.backend.to_wire(),
        }

    @classmethod
    def from_wire(cls, body: Mapping[str, Any]) -> HandshakeResult:
        """The handshake result of a reply body; ``ProtocolError`` names what is wrong.

        A protocol of another major is reported as ``ProtocolMismatch``.
        """
        if set(body) != {"protocol", "max_request_bytes", "backend"}:
            raise ProtocolError(
                f"handshake result must have protocol, max_request_bytes, backend; got {sorted(body)[:8]}"
            )
        if not protocol_compatible(body["protocol"]):
            raise ProtocolMismatch(
                f"backend speaks protocol {repr(body['protocol'])[:80]}; this harness speaks {PROTOCOL_VERSION}"
            )
        limit = body["max_request_bytes"]
        if limit is not None and (type(limit) is not int or not _MIN_REQUEST_CAP <= limit <= U64_MAX):
            raise ProtocolError(
                f"max_request_bytes must be null or an integer >= {_MIN_REQUEST_CAP}, got {limit!r:.40}"
            )
        try:
            description = BackendDescription.from_wire(body["backend"])
        except Serialization as exc:
            raise ProtocolError(f"handshake backend description is malformed: {exc.message_text}") from None
        return cls(limit, description, body["protocol"])


class ProtocolMismatch(ProtocolError):
    """The backend speaks another protocol major version."""
