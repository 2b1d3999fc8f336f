"""Scenario bundles: replayable, canonical records of one operation call.

A bundle file holds exactly the canonical JSON bytes (sorted keys, compact, no trailing
newline) of::

    {"bundle_version": 1, "case": str, "operation": str, "params": {...},
     "expect": null | {"result": {...}} | {"error": {"kind": ..., <fields>}}, "note": str}

and is named ``<sha256 of those bytes>.json``. ``params`` are the protocol params of
``operation`` and are sent as they are. With ``expect`` null, the reference oracle's outcome is
the expectation; otherwise the backend's outcome must match ``expect`` (``Outcome.matches``).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from harness.outcome import Outcome
from harness.protocol.codecs import ProtocolError
from harness.protocol.operations import OPERATIONS, Operation
from reference.bounded_read import read_bounded
from reference.canonical import canonical_bytes, loads_strict, sha256_hex
from reference.errors import ERROR_KINDS, Serialization
from reference.wire import WireObject

__all__ = [
    "BUNDLE_VERSION",
    "MAX_BUNDLE_BYTES",
    "Bundle",
    "BundleMismatch",
    "Replayer",
    "check_bundle",
    "load_bundle",
    "write_bundle",
]

BUNDLE_VERSION: Final = 1
MAX_BUNDLE_BYTES: Final = 64 * 1024 * 1024
_CONTEXT: Final = "decode scenario bundle"
_FIELDS: Final = ("bundle_version", "case", "operation", "params", "expect", "note")


class BundleMismatch(AssertionError):
    """The backend's outcome differs from the bundle's expectation."""


class Replayer(Protocol):
    """Anything that sends protocol params as they are (a client, a gated backend)."""

    def outcome(self, operation: Operation[Any], params: dict[str, Any]) -> Outcome: ...


def _check_expect(expect: Any) -> None:
    if expect is None:
        return
    if not isinstance(expect, dict) or len(expect) != 1 or next(iter(expect)) not in ("result", "error"):
        raise Serialization(_CONTEXT, 'expect must be null, {"result": {...}} or {"error": {...}}')
    body = next(iter(expect.values()))
    if not isinstance(body, dict):
        raise Serialization(_CONTEXT, "expect body must be an object")
    if "error" in expect and body.get("kind") not in ERROR_KINDS:
        raise Serialization(_CONTEXT, f"expect.error.kind {str(body.get('kind'))[:80]!r} is not a VNextError kind")


@dataclass(frozen=True, slots=True)
class Bundle:
    """One replayable operation call and what it must produce."""

    operation: str
    params: dict[str, Any]
    expect: dict[str, Any] | None = None
    case: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        declared = OPERATIONS.get(self.operation)
        if declared is None:
            raise Serialization(_CONTEXT, f"unknown operation {self.operation[:80]!r}")
        try:
            declared.check_params(self.params)
        except ProtocolError as exc:
            raise Serialization(_CONTEXT, str(exc)) from None
        _check_expect(self.expect)

    @property
    def declared(self) -> Operation[Any]:
        return OPERATIONS[self.operation]

    def to_wire(self) -> dict[str, Any]:
        return {
            "bundle_version": BUNDLE_VERSION,
            "case": self.case,
            "operation": self.operation,
            "params": self.params,
            "expect": self.expect,
            "note": self.note,
        }

    def canonical(self) -> bytes:
        return canonical_bytes(self.to_wire(), context="encode scenario bundle")

    @property
    def name(self) -> str:
        """The sha256 of the canonical bytes (the file name without ``.json``)."""
        return sha256_hex(self.canonical())

    @classmethod
    def from_wire(cls, raw: Any) -> Bundle:
        obj = WireObject(raw, _FIELDS, type_name="ScenarioBundle", context=_CONTEXT)
        if obj.u32("bundle_version") != BUNDLE_VERSION:
            raise Serialization(_CONTEXT, f"bundle_version must be {BUNDLE_VERSION}")
        params = obj.raw("params")
        if not isinstance(params, dict):
            raise Serialization(_CONTEXT, "params must be an object")
        return cls(obj.string("operation"), params, obj.raw("expect"), obj.string("case"), obj.string("note"))


def write_bundle(directory: Path | str, bundle: Bundle) -> Path:
    """Write ``bundle`` as ``<dir>/<sha256>.json`` atomically (idempotent, safe between processes)."""
    data = bundle.canonical()
    target = Path(directory)
    path = target / f"{sha256_hex(data)}.json"
    target.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return path
    handle, temporary = tempfile.mkstemp(dir=target, prefix=f".{path.stem[:16]}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def load_bundle(path: Path | str) -> Bundle:
    """Decode a bundle file strictly (size bounded while reading); ``Serialization`` when it is not one."""
    data = read_bounded(path, max_bytes=MAX_BUNDLE_BYTES, context=_CONTEXT)
    return Bundle.from_wire(loads_strict(data, context=_CONTEXT, max_bytes=MAX_BUNDLE_BYTES))


def expected_outcome(bundle: Bundle, oracle: Replayer) -> Outcome | dict[str, Any]:
    """The bundle's own expectation, or the oracle's outcome when it has none."""
    if bundle.expect is not None:
        return bundle.expect
    return oracle.outcome(bundle.declared, bundle.params)


def check_bundle(backend: Replayer, oracle: Replayer, bundle: Bundle) -> Outcome:
    """Run the bundle on ``backend``; ``BundleMismatch`` unless the outcome is the expected one.

    ``OperationNotSupported`` and ``BackendFault`` propagate.
    """
    expected = expected_outcome(bundle, oracle)
    actual = backend.outcome(bundle.declared, bundle.params)
    if isinstance(expected, Outcome):
        if actual != expected:
            raise BundleMismatch(
                f"{bundle.operation}: backend gave {actual.describe()}, the reference gives {expected.describe()}"
            )
    elif not actual.matches(expected):
        raise BundleMismatch(
            f"{bundle.operation}: backend gave {actual.describe()}, the bundle expects {repr(expected)[:300]}"
        )
    return actual
