"""In-process fake backends for harness tests (``python:tests.harness.fake_backends:FACTORY``).

``make`` builds ``FullFake``: every operation implemented with deterministic,
scenario-derived results, including wire bytes that are not valid UTF-8, so
in-process and exec results can be compared byte for byte. A scenario
``{"raise": <error object>}`` raises that contract error; ``{"unsupported": true}``
raises ``OperationNotSupported``; ``{"crash": true}`` raises ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any

from harness.protocol.description import BackendDescription, Implementation
from reference.api import OperationNotSupported, PreparedFamily, StepAnswer, WeightPlanSelection
from reference.canonical import canonical_bytes, direct_bytes, fingerprint, sha256_hex
from reference.errors import InvalidIdentity, Serialization, error_from_dict
from reference.runtime.ledger import LedgerReport
from reference.runtime.result import ExecuteResult
from tests.broken.base import ReferenceBackend, Scenario

ALL_OPERATIONS = (
    "build_plan",
    "check_identity",
    "compile_plan",
    "decode_catalog",
    "describe",
    "device_runtime_script",
    "execute",
    "fingerprint_catalog",
    "lookup_engine_provider",
    "prepare_family",
    "provider_compatibility",
    "revalidate",
    "revalidate_family",
    "select_weight_plan",
)


def _reference_description(**changes: Any) -> BackendDescription:
    base = ReferenceBackend().describe()
    values: dict[str, Any] = {
        "implementation": Implementation("fake-full", "1.0.0", "python"),
        "contract": base.contract,
        "operations": ALL_OPERATIONS,
        "limits": dict(base.limits),
    }
    values.update(changes)
    return BackendDescription(**values)


def _check(scenario: Scenario, operation: str) -> None:
    if "raise" in scenario:
        raise error_from_dict(scenario["raise"])
    if scenario.get("unsupported"):
        raise OperationNotSupported(operation)
    if scenario.get("crash"):
        raise RuntimeError("fake backend bug")


class FullFake:
    """Deterministic implementation of every operation."""

    def __init__(self, description: BackendDescription | None = None) -> None:
        self._description = description or _reference_description()

    def describe(self) -> BackendDescription:
        return self._description

    def prepare_family(self, scenario: Scenario) -> PreparedFamily:
        _check(scenario, "prepare_family")
        wire = canonical_bytes(dict(scenario))
        return PreparedFamily(wire, sha256_hex(wire))

    def fingerprint_catalog(self, scenario: Scenario) -> str:
        _check(scenario, "fingerprint_catalog")
        return fingerprint(dict(scenario))

    def build_plan(self, scenario: Scenario) -> bytes:
        _check(scenario, "build_plan")
        return canonical_bytes(dict(scenario)) + b"\xff\x00\n" + "é\u2028".encode()

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        _check(scenario, "revalidate")
        return sha256_hex(wire + canonical_bytes(dict(scenario)))

    def select_weight_plan(self, scenario: Scenario) -> WeightPlanSelection:
        _check(scenario, "select_weight_plan")
        return WeightPlanSelection(direct_bytes(dict(scenario)), fingerprint(dict(scenario)))

    def revalidate_family(self, scenario: Scenario, wire: bytes) -> str:
        _check(scenario, "revalidate_family")
        return sha256_hex(b"family\0" + wire + canonical_bytes(dict(scenario)))

    def compile_plan(self, scenario: Scenario, options: Any) -> bytes:
        _check(scenario, "compile_plan")
        return canonical_bytes({"options": options, "scenario": dict(scenario)}) + b"\xfe"

    def check_identity(self, identity_kind: str, value: str) -> None:
        if not value:
            raise InvalidIdentity(identity_kind=identity_kind, value=value, reason="empty")

    def decode_catalog(self, wire: bytes) -> str:
        return sha256_hex(b"catalog\0" + wire)

    def lookup_engine_provider(self, scenario: Scenario, provider_id: str, required_version: Any) -> bytes:
        _check(scenario, "lookup_engine_provider")
        return canonical_bytes({"id": provider_id, "scenario": dict(scenario), "version": required_version}) + b"\xfd"

    def provider_compatibility(self, scenario: Scenario, request: Any) -> bytes:
        _check(scenario, "provider_compatibility")
        return canonical_bytes({"request": request, "scenario": dict(scenario)}) + b"\xfc"

    def execute(self, scenario: Scenario, inputs: Any, replays: int) -> ExecuteResult:
        _check(scenario, "execute")
        data = canonical_bytes({"scenario": dict(scenario), "inputs": {k: v.hex() for k, v in inputs.items()}})
        ledger = LedgerReport(len(data), {}, 1, 0, 0)
        return ExecuteResult({"value.fake": data}, ledger, (sha256_hex(data),) * max(1, min(replays, 64)))

    def device_runtime_script(self, scenario: Scenario, script: Any) -> tuple[StepAnswer, ...]:
        _check(scenario, "device_runtime_script")
        if not isinstance(script, list):
            raise Serialization("decode device runtime script", "$: expected an array")
        return tuple(StepAnswer(value={"step": step, "scenario_keys": sorted(scenario)}) for step in script)

    def close(self) -> None:
        return None


def make() -> FullFake:
    return FullFake()


def make_wrong_limits() -> FullFake:
    """Reports a plan wire limit one byte too small (fails ``describe/test_contract_limit``)."""
    base = _reference_description()
    limits = dict(base.limits)
    limits["max_execution_plan_wire_bytes"] -= 1
    return FullFake(_reference_description(limits=limits, operations=("describe",)))


def make_describe_only() -> FullFake:
    return FullFake(_reference_description(operations=("describe",)))


class NoClose:
    """A backend object without ``close`` (the python connector adds one)."""

    def __init__(self) -> None:
        self._inner = FullFake()

    def __getattr__(self, name: str) -> Any:
        if name == "close":
            raise AttributeError(name)
        return getattr(self._inner, name)


def make_no_close() -> NoClose:
    return NoClose()


def not_a_backend() -> object:
    return object()
