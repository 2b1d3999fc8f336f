"""The reference as a Python backend object with one method per operation, for broken backends to override."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.backends.reference import ReferenceImplementation
from harness.protocol.description import BackendDescription
from reference import api
from reference.api import PreparedFamily, WeightPlanSelection
from reference.runtime.result import ExecuteResult

__all__ = ["ReferenceBackend"]

Scenario = Mapping[str, Any]


class ReferenceBackend:
    """Every operation of ``reference.api``."""

    def describe(self) -> BackendDescription:
        return ReferenceImplementation().describe()

    def prepare_family(self, scenario: Scenario) -> PreparedFamily:
        return api.prepare_family(scenario)

    def fingerprint_catalog(self, scenario: Scenario) -> str:
        return api.fingerprint_catalog(scenario)

    def build_plan(self, scenario: Scenario) -> bytes:
        return api.build_plan(scenario)

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        return api.revalidate(scenario, wire)

    def select_weight_plan(self, scenario: Scenario) -> WeightPlanSelection:
        return api.select_weight_plan(scenario)

    def revalidate_family(self, scenario: Scenario, wire: bytes) -> str:
        return api.revalidate_family(scenario, wire)

    def compile_plan(self, scenario: Scenario, options: Any) -> bytes:
        return api.compile_plan(scenario, options)

    def check_identity(self, identity_kind: str, value: str) -> None:
        api.check_identity(identity_kind, value)

    def decode_catalog(self, wire: bytes) -> str:
        return api.decode_catalog(wire)

    def lookup_engine_provider(self, scenario: Scenario, provider_id: str, required_version: Any) -> bytes:
        return api.lookup_engine_provider(scenario, provider_id, required_version)

    def provider_compatibility(self, scenario: Scenario, request: Any) -> bytes:
        return api.provider_compatibility(scenario, request)

    def execute(self, scenario: Scenario, inputs: Mapping[str, bytes] | None = None, replays: int = 1) -> ExecuteResult:
        return api.execute(scenario, inputs or {}, replays)

    def device_runtime_script(self, scenario: Scenario, script: Any) -> tuple[api.StepAnswer, ...]:
        return api.device_runtime_script(scenario, script)

    def close(self) -> None:
        return None
