"""The operations table: JSON codecs between the typed backend interface and the protocol.

Request ``params`` and reply ``result`` shapes per operation (harness/PROTOCOL.md §5):

=====================  ======================================  =========================================
operation              params                                  result
=====================  ======================================  =========================================
``describe``           ``{}``                                  BackendDescription
``prepare_family``     ``{"scenario"}``                        ``{"wire_base64", "fingerprint"}``
``fingerprint_catalog`` ``{"scenario"}``                       ``{"fingerprint"}``
``build_plan``         ``{"scenario"}``                        ``{"wire_base64"}``
``revalidate``         ``{"scenario", "wire_base64"}``         ``{"plan_hash"}``
``select_weight_plan`` ``{"scenario"}``                        ``{"wire_base64", "fingerprint"}``
``execute`` (optional) ``{"scenario", "inputs", "replays"}``   ``{"outputs", "ledger", "replay_digests"}``
=====================  ======================================  =========================================

Wire bytes travel as standard base64 (RFC 4648 §4, padded), so any byte string,
including invalid UTF-8 forged for rejection tests, crosses the protocol exactly.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from harness.backend import Backend, OperationNotSupported
from harness.contract import KNOWN_OPERATIONS
from harness.description import BackendDescription
from reference.api import PreparedFamily, WeightPlanSelection
from reference.canonical import is_canonical_sha256
from reference.errors import Serialization
from reference.runtime.result import ExecuteResult

__all__ = [
    "OPERATION_SPECS",
    "ProtocolError",
    "b64decode_exact",
    "b64encode",
    "call_json",
    "decode_params",
    "decode_result",
    "encode_params",
    "encode_result",
    "invoke",
]


class ProtocolError(ValueError):
    """A params or result object does not have the operation's protocol shape."""


def b64encode(data: bytes) -> str:
    """Standard, padded base64 text of ``data``."""
    return base64.b64encode(data).decode("ascii")


def b64decode_exact(text: Any, *, what: str) -> bytes:
    """Decode canonical standard base64; anything else (bad alphabet, padding, bits) is refused."""
    if not isinstance(text, str):
        raise ProtocolError(f"{what} must be a base64 string")
    try:
        data = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise ProtocolError(f"{what} is not valid base64: {exc}") from None
    if base64.b64encode(data).decode("ascii") != text:
        raise ProtocolError(f"{what} is not canonical padded base64")
    return data


def _exact_keys(raw: Any, keys: Sequence[str], what: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise ProtocolError(f"{what} must be a JSON object")
    if set(raw) != set(keys):
        raise ProtocolError(f"{what} must have exactly the keys {sorted(keys)}, got {sorted(raw)}")
    return raw


def _scenario(raw: Mapping[str, Any], what: str) -> Mapping[str, Any]:
    scenario = raw["scenario"]
    if not isinstance(scenario, dict):
        raise ProtocolError(f"{what}.scenario must be a JSON object")
    return scenario


def _sha(raw: Mapping[str, Any], key: str, what: str) -> str:
    value = raw[key]
    if not is_canonical_sha256(value):
        raise ProtocolError(f"{what}.{key} must be 64 lowercase hex characters, got {value!r:.80}")
    return str(value)


@dataclass(frozen=True, slots=True)
class OperationSpec:
    """One operation's params and result codecs."""

    name: str
    param_keys: tuple[str, ...]
    encode_params: Callable[..., dict[str, Any]]
    decode_params: Callable[[Mapping[str, Any]], tuple[Any, ...]]
    encode_result: Callable[[Any], dict[str, Any]]
    decode_result: Callable[[Any], Any]


def _scenario_only_params(
    op: str,
) -> tuple[Callable[..., dict[str, Any]], Callable[[Mapping[str, Any]], tuple[Any, ...]]]:
    def enc(scenario: Mapping[str, Any]) -> dict[str, Any]:
        return {"scenario": scenario}

    def dec(raw: Mapping[str, Any]) -> tuple[Any, ...]:
        return (_scenario(raw, f"{op} params"),)

    return enc, dec


def _wire_and_fingerprint(
    op: str, cls: type[PreparedFamily] | type[WeightPlanSelection]
) -> tuple[Callable[[Any], dict[str, Any]], Callable[[Any], Any]]:
    def enc(value: Any) -> dict[str, Any]:
        if not isinstance(value, cls):
            raise ProtocolError(f"{op} must return {cls.__name__}, got {type(value).__name__}")
        return {"wire_base64": b64encode(value.wire), "fingerprint": value.fingerprint}

    def dec(raw: Any) -> Any:
        obj = _exact_keys(raw, ("wire_base64", "fingerprint"), f"{op} result")
        return cls(
            b64decode_exact(obj["wire_base64"], what=f"{op} result.wire_base64"),
            _sha(obj, "fingerprint", f"{op} result"),
        )

    return enc, dec


def _describe_result_dec(raw: Any) -> BackendDescription:
    try:
        return BackendDescription.from_wire(raw)
    except Serialization as exc:
        raise ProtocolError(f"describe result: {exc.message_text}") from None


def _describe_result_enc(value: Any) -> dict[str, Any]:
    if not isinstance(value, BackendDescription):
        raise ProtocolError(f"describe must return BackendDescription, got {type(value).__name__}")
    return value.to_wire()


def _fp_enc(value: Any) -> dict[str, Any]:
    if not isinstance(value, str):
        raise ProtocolError(f"fingerprint_catalog must return str, got {type(value).__name__}")
    return {"fingerprint": value}


def _fp_dec(raw: Any) -> str:
    return _sha(
        _exact_keys(raw, ("fingerprint",), "fingerprint_catalog result"), "fingerprint", "fingerprint_catalog result"
    )


def _build_enc(value: Any) -> dict[str, Any]:
    if not isinstance(value, bytes):
        raise ProtocolError(f"build_plan must return bytes, got {type(value).__name__}")
    return {"wire_base64": b64encode(value)}


def _build_dec(raw: Any) -> bytes:
    obj = _exact_keys(raw, ("wire_base64",), "build_plan result")
    return b64decode_exact(obj["wire_base64"], what="build_plan result.wire_base64")


def _reval_params_enc(scenario: Mapping[str, Any], wire: bytes) -> dict[str, Any]:
    return {"scenario": scenario, "wire_base64": b64encode(wire)}


def _reval_params_dec(raw: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        _scenario(raw, "revalidate params"),
        b64decode_exact(raw["wire_base64"], what="revalidate params.wire_base64"),
    )


def _hash_enc(value: Any) -> dict[str, Any]:
    if not isinstance(value, str):
        raise ProtocolError(f"revalidate must return str, got {type(value).__name__}")
    return {"plan_hash": value}


def _hash_dec(raw: Any) -> str:
    return _sha(_exact_keys(raw, ("plan_hash",), "revalidate result"), "plan_hash", "revalidate result")


def _execute_params_enc(
    scenario: Mapping[str, Any], inputs: Mapping[str, bytes] | None = None, replays: int = 1
) -> dict[str, Any]:
    return {
        "scenario": scenario,
        "inputs": {k: b64encode(bytes(v)) for k, v in sorted((inputs or {}).items())},
        "replays": replays,
    }


def _execute_params_dec(raw: Mapping[str, Any]) -> tuple[Any, ...]:
    inputs = raw["inputs"]
    if not isinstance(inputs, dict):
        raise ProtocolError("execute params.inputs must be a JSON object")
    decoded = {str(k): b64decode_exact(v, what=f"execute params.inputs.{k}") for k, v in inputs.items()}
    replays = raw["replays"]
    if type(replays) is not int or not 0 <= replays <= 0xFFFFFFFF:
        raise ProtocolError("execute params.replays must be a u32")
    return (_scenario(raw, "execute params"), decoded, replays)


def _execute_result_enc(value: Any) -> dict[str, Any]:
    if not isinstance(value, ExecuteResult):
        raise ProtocolError(f"execute must return ExecuteResult, got {type(value).__name__}")
    return value.to_wire()


def _execute_result_dec(raw: Any) -> ExecuteResult:
    try:
        return ExecuteResult.from_wire(raw)
    except Serialization as exc:
        raise ProtocolError(f"execute result: {exc.message_text}") from None


def _build_specs() -> dict[str, OperationSpec]:
    specs: dict[str, OperationSpec] = {
        "describe": OperationSpec(
            "describe", (), lambda: {}, lambda raw: (), _describe_result_enc, _describe_result_dec
        ),
    }
    for op in ("prepare_family", "fingerprint_catalog", "build_plan", "select_weight_plan"):
        enc_p, dec_p = _scenario_only_params(op)
        if op == "prepare_family":
            enc_r, dec_r = _wire_and_fingerprint(op, PreparedFamily)
        elif op == "select_weight_plan":
            enc_r, dec_r = _wire_and_fingerprint(op, WeightPlanSelection)
        elif op == "fingerprint_catalog":
            enc_r, dec_r = _fp_enc, _fp_dec
        else:
            enc_r, dec_r = _build_enc, _build_dec
        specs[op] = OperationSpec(op, ("scenario",), enc_p, dec_p, enc_r, dec_r)
    specs["revalidate"] = OperationSpec(
        "revalidate", ("scenario", "wire_base64"), _reval_params_enc, _reval_params_dec, _hash_enc, _hash_dec
    )
    specs["execute"] = OperationSpec(
        "execute",
        ("scenario", "inputs", "replays"),
        _execute_params_enc,
        _execute_params_dec,
        _execute_result_enc,
        _execute_result_dec,
    )
    if set(specs) != set(KNOWN_OPERATIONS):  # pragma: no cover - table and contract must agree
        raise AssertionError("operation table does not match KNOWN_OPERATIONS")
    return {name: specs[name] for name in KNOWN_OPERATIONS}


#: operation name -> codecs, in protocol order.
OPERATION_SPECS: Final[Mapping[str, OperationSpec]] = _build_specs()


def _spec(operation: str) -> OperationSpec:
    spec = OPERATION_SPECS.get(operation)
    if spec is None:
        raise ProtocolError(f"unknown operation {operation!r}")
    return spec


def encode_params(operation: str, *args: Any) -> dict[str, Any]:
    """The ``params`` object of a request for ``operation`` with typed ``args``."""
    return _spec(operation).encode_params(*args)


def decode_params(operation: str, raw: Any) -> tuple[Any, ...]:
    """Typed arguments from a request's ``params`` (exact keys; scenario must be an object)."""
    spec = _spec(operation)
    return spec.decode_params(_exact_keys(raw, spec.param_keys, f"{operation} params"))


def encode_result(operation: str, value: Any) -> dict[str, Any]:
    """The ``result`` object of a reply carrying the typed ``value``."""
    return _spec(operation).encode_result(value)


def decode_result(operation: str, raw: Any) -> Any:
    """The typed value of a reply's ``result``; ``ProtocolError`` when its shape is wrong."""
    return _spec(operation).decode_result(raw)


def invoke(backend: Backend, operation: str, args: Sequence[Any]) -> Any:
    """Call the typed method ``operation`` of ``backend``."""
    _spec(operation)
    method: Callable[..., Any] | None = getattr(backend, operation, None)
    if method is None:  # an optional operation the backend object does not have
        raise OperationNotSupported(operation)
    return method(*args)


def call_json(backend: Backend, operation: str, params: Any) -> dict[str, Any]:
    """Protocol params in, protocol result out, through the typed interface."""
    return encode_result(operation, invoke(backend, operation, decode_params(operation, params)))
