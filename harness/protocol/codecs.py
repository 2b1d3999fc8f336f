"""Codecs between typed values and their protocol JSON: one per parameter shape and result shape.

A *parameter* is decoded from its raw member text in a request, with its own byte cap and the
strict decoder, so an over-cap scenario is refused before it is parsed. A parameter's decode
failure is either a contract error (``VNextError``: the scenario itself is malformed, answered
as an ``error`` reply) or a ``ProtocolError`` (the params are malformed: ``bad_request``).
A *result* is decoded from the already parsed reply body; any shape error is ``ProtocolError``.

Wire bytes travel as standard padded base64 (RFC 4648 §4), so any byte string crosses exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar

import orjson

from harness.protocol.description import BackendDescription
from reference.api import DEVICE_RUNTIME_REFUSALS, MAX_SCENARIO_BYTES, SCENARIO_CONTEXT, ExecuteResult, StepAnswer
from reference.canonical import is_canonical_sha256, loads_strict
from reference.errors import Serialization, error_from_dict
from reference.fast_base64 import canonical_base64, write_base64
from reference.wire import U32_MAX, read_base64

__all__ = [
    "BytesMapParam",
    "ChoiceParam",
    "DescriptionResult",
    "DocumentParam",
    "EmptyResult",
    "ExecuteResultCodec",
    "Param",
    "ProtocolError",
    "RawJson",
    "ResultCodec",
    "ScenarioParam",
    "Sha256Result",
    "StepAnswersResult",
    "StringParam",
    "U32Param",
    "WireAndFingerprintResult",
    "WireParam",
    "WireResult",
    "b64encode",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
_PARAM_CONTEXT: Final = "decode protocol params"
#: A base64 parameter carries at most a 64 MiB request line.
_MAX_BASE64_BYTES: Final = 64 * 1024 * 1024
_QUOTE: Final = ord('"')
#: A string parameter's JSON text is at most 64 KiB.
_MAX_STRING_BYTES: Final = 64 * 1024


class ProtocolError(ValueError):
    """A params or result object does not have the operation's protocol shape."""


@dataclass(frozen=True, slots=True)
class RawJson:
    """A JSON text sent verbatim as a parameter (for byte-exact respellings of a document)."""

    data: bytes

    def fragment(self) -> orjson.Fragment:
        return orjson.Fragment(self.data)


def b64encode(data: bytes) -> str:
    """Standard, padded base64 text of ``data``."""
    return write_base64(data)


def _b64decode(text: Any, what: str) -> bytes:
    try:
        return read_base64(text, context=_PARAM_CONTEXT, path=what)
    except Serialization as exc:
        raise ProtocolError(exc.message_text) from None


def _param_json(raw: bytes, what: str, max_bytes: int, depth: int | None) -> Any:
    try:
        return loads_strict(raw, context=_PARAM_CONTEXT, max_bytes=max_bytes, depth=depth)
    except Serialization as exc:
        raise ProtocolError(f"{what}: {exc.message_text}") from None


class Param(Protocol[T]):
    """One named parameter of an operation."""

    @property
    def name(self) -> str: ...

    def encode(self, value: T) -> Any:
        """The JSON value (or ``orjson.Fragment``) sent for ``value``."""
        ...

    def decode(self, raw: bytes, depth: int | None = None) -> T:
        """The typed value of the member text ``raw`` (``depth``: its nesting depth, when already measured)."""
        ...


@dataclass(frozen=True, slots=True)
class ScenarioParam:
    """A scenario document: any JSON value, capped and strictly decoded as ``decode scenario``.

    Its decode errors are the contract's (``serialization`` / ``decode scenario``): a malformed
    scenario is answered with the contract error, like a malformed scenario file.
    """

    name: str = "scenario"

    def encode(self, value: Mapping[str, Any] | RawJson) -> Any:
        return value

    def decode(self, raw: bytes, depth: int | None = None) -> Any:
        return loads_strict(raw, context=SCENARIO_CONTEXT, max_bytes=MAX_SCENARIO_BYTES, depth=depth)


@dataclass(frozen=True, slots=True)
class DocumentParam:
    """A document of the planning layers beside the scenario: any JSON value, capped like a scenario and
    strictly decoded with ``context``; like a scenario's, its decode errors are the contract's."""

    name: str
    context: str

    def encode(self, value: Any) -> Any:
        return value

    def decode(self, raw: bytes, depth: int | None = None) -> Any:
        return loads_strict(raw, context=self.context, max_bytes=MAX_SCENARIO_BYTES, depth=depth)


@dataclass(frozen=True, slots=True)
class StringParam:
    """Any JSON string of at most ``max_bytes`` bytes of request text, passed on unchanged."""

    name: str
    max_bytes: int = _MAX_STRING_BYTES

    def encode(self, value: str) -> Any:
        return value

    def decode(self, raw: bytes, depth: int | None = None) -> str:
        value = _param_json(raw, self.name, self.max_bytes, depth)
        if not isinstance(value, str):
            raise ProtocolError(f"{self.name} must be a JSON string")
        return value


@dataclass(frozen=True, slots=True)
class ChoiceParam:
    """One of a fixed set of strings."""

    name: str
    choices: Collection[str]

    def encode(self, value: str) -> Any:
        return value

    def decode(self, raw: bytes, depth: int | None = None) -> str:
        value = _param_json(raw, self.name, 4096, depth)
        if not isinstance(value, str) or value not in self.choices:
            raise ProtocolError(f"{self.name} must be one of {sorted(self.choices)}, got {repr(value)[:80]}")
        return value


@dataclass(frozen=True, slots=True)
class WireParam:
    """Exact bytes as canonical base64 text."""

    name: str

    def encode(self, value: bytes) -> Any:
        return b64encode(value)

    def decode(self, raw: bytes, depth: int | None = None) -> bytes:
        if 2 <= len(raw) <= _MAX_BASE64_BYTES and raw[0] == raw[-1] == _QUOTE:
            # A JSON string of base64 letters only is its own value: no escapes, nothing to refuse.
            plain = canonical_base64(memoryview(raw)[1:-1])
            if plain is not None:
                return plain
        return _b64decode(_param_json(raw, self.name, _MAX_BASE64_BYTES, depth), self.name)


@dataclass(frozen=True, slots=True)
class BytesMapParam:
    """A map of names to exact bytes, each as canonical base64 text."""

    name: str

    def encode(self, value: Mapping[str, bytes] | None) -> Any:
        return {key: b64encode(bytes(data)) for key, data in sorted((value or {}).items())}

    def decode(self, raw: bytes, depth: int | None = None) -> dict[str, bytes]:
        value = _param_json(raw, self.name, _MAX_BASE64_BYTES, depth)
        if not isinstance(value, dict):
            raise ProtocolError(f"{self.name} must be a JSON object")
        return {str(key): _b64decode(text, f"{self.name}.{key}") for key, text in value.items()}


@dataclass(frozen=True, slots=True)
class U32Param:
    """An unsigned 32-bit integer."""

    name: str

    def encode(self, value: int) -> Any:
        return value

    def decode(self, raw: bytes, depth: int | None = None) -> int:
        value = _param_json(raw, self.name, 64, depth)
        if type(value) is not int or not 0 <= value <= U32_MAX:
            raise ProtocolError(f"{self.name} must be a u32")
        return value


# --------------------------------------------------------------------------- results
# Result codecs raise ``ProtocolError`` with a message relative to the result object; the
# operation prefixes its own name.


class ResultCodec(Protocol, Generic[T_co]):
    """How an operation's result travels."""

    def encode(self, value: Any) -> dict[str, Any]: ...

    def decode(self, raw: Any) -> T_co: ...


def _exact_keys(raw: Any, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise ProtocolError("must be a JSON object")
    if set(raw) != set(keys):
        raise ProtocolError(f"must have exactly the keys {sorted(keys)}, got {sorted(raw)[:8]}")
    return raw


def _sha(raw: Mapping[str, Any], key: str) -> str:
    value = raw[key]
    if not is_canonical_sha256(value):
        raise ProtocolError(f"{key} must be 64 lowercase hex characters, got {repr(value)[:80]}")
    return str(value)


def _expect(value: Any, cls: type[T]) -> T:
    if not isinstance(value, cls):
        raise ProtocolError(f"the implementation returned {type(value).__name__}, not {cls.__name__}")
    return value


@dataclass(frozen=True, slots=True)
class DescriptionResult:
    """The ``BackendDescription`` object itself."""

    def encode(self, value: Any) -> dict[str, Any]:
        return _expect(value, BackendDescription).to_wire()

    def decode(self, raw: Any) -> BackendDescription:
        try:
            return BackendDescription.from_wire(raw)
        except Serialization as exc:
            raise ProtocolError(exc.message_text) from None


@dataclass(frozen=True, slots=True)
class WireAndFingerprintResult(Generic[T]):
    """``{"wire_base64", "fingerprint"}`` as a ``(wire, fingerprint)`` value of ``cls``."""

    cls: type[T]

    def encode(self, value: Any) -> dict[str, Any]:
        _expect(value, self.cls)
        return {"wire_base64": b64encode(value.wire), "fingerprint": value.fingerprint}

    def decode(self, raw: Any) -> T:
        obj = _exact_keys(raw, ("wire_base64", "fingerprint"))
        wire = _b64decode(obj["wire_base64"], "wire_base64")
        return self.cls(wire, _sha(obj, "fingerprint"))  # type: ignore[call-arg]


@dataclass(frozen=True, slots=True)
class Sha256Result:
    """``{key: <64 lowercase hex>}`` as the hex string."""

    key: str

    def encode(self, value: Any) -> dict[str, Any]:
        return {self.key: _expect(value, str)}

    def decode(self, raw: Any) -> str:
        return _sha(_exact_keys(raw, (self.key,)), self.key)


@dataclass(frozen=True, slots=True)
class WireResult:
    """``{"wire_base64"}`` as the exact bytes."""

    def encode(self, value: Any) -> dict[str, Any]:
        return {"wire_base64": b64encode(_expect(value, bytes))}

    def decode(self, raw: Any) -> bytes:
        return _b64decode(_exact_keys(raw, ("wire_base64",))["wire_base64"], "wire_base64")


@dataclass(frozen=True, slots=True)
class EmptyResult:
    """``{}``: the operation succeeded and has nothing to return (``None``)."""

    def encode(self, value: Any) -> dict[str, Any]:
        if value is not None:
            raise ProtocolError(f"the implementation returned {type(value).__name__}, not None")
        return {}

    def decode(self, raw: Any) -> None:
        _exact_keys(raw, ())


@dataclass(frozen=True, slots=True)
class ExecuteResultCodec:
    """``ExecuteResult`` (schemas/runtime/execute_result.json)."""

    def encode(self, value: Any) -> dict[str, Any]:
        return _expect(value, ExecuteResult).to_wire()

    def decode(self, raw: Any) -> ExecuteResult:
        try:
            return ExecuteResult.from_wire(raw)
        except Serialization as exc:
            raise ProtocolError(exc.message_text) from None


@dataclass(frozen=True, slots=True)
class StepAnswersResult:
    """``{"answers": [{"value": ...} | {"error": <error object>} | {"refused": {"as", "message"}}, ...]}`` as a
    tuple of ``StepAnswer``."""

    def encode(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, tuple | list) or not all(isinstance(item, StepAnswer) for item in value):
            raise ProtocolError(f"the implementation returned {type(value).__name__}, not a sequence of StepAnswer")
        return {"answers": [item.to_wire() for item in value]}

    def decode(self, raw: Any) -> tuple[StepAnswer, ...]:
        if not isinstance(raw, dict) or set(raw) != {"answers"} or not isinstance(raw["answers"], list):
            raise ProtocolError("must be an object with exactly the key answers, an array")
        return tuple(self._answer(index, item) for index, item in enumerate(raw["answers"]))

    @staticmethod
    def _answer(index: int, item: Any) -> StepAnswer:
        if not isinstance(item, dict) or len(item) != 1 or not set(item) <= {"value", "error", "refused"}:
            raise ProtocolError(f"answers[{index}] must have exactly one of the keys value, error, refused")
        if "value" in item:
            return StepAnswer(value=item["value"])
        if "refused" in item:
            refused = item["refused"]
            if (
                not isinstance(refused, dict)
                or set(refused) != {"as", "message"}
                or refused["as"] not in DEVICE_RUNTIME_REFUSALS
                or not isinstance(refused["message"], str)
            ):
                raise ProtocolError(
                    f"answers[{index}].refused must be {{as: one of {list(DEVICE_RUNTIME_REFUSALS)}, message: string}}"
                )
            return StepAnswer(refused=refused["as"], message=refused["message"])
        try:
            return StepAnswer(error=error_from_dict(item["error"]))
        except Serialization as exc:
            raise ProtocolError(f"answers[{index}].error: {exc.message_text}") from None
