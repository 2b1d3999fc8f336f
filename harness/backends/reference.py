"""The built-in reference backend: every operation delegates to ``reference.api``."""

from __future__ import annotations

from collections.abc import Mapping

from harness.backend import ExecuteResult, PreparedFamily, Scenario, WeightPlanSelection
from harness.contract import suite_version
from harness.description import BackendDescription, ContractIdentity, Implementation
from reference import api

__all__ = ["ReferenceBackend", "make"]


class ReferenceBackend:
    """In-process reference implementation; ``describe`` lists what ``reference.api`` implements."""

    def describe(self) -> BackendDescription:
        return BackendDescription(
            implementation=Implementation(api.IMPLEMENTATION_NAME, suite_version(), api.IMPLEMENTATION_LANGUAGE),
            contract=ContractIdentity(
                api.CONTRACT_CRATE, api.CONTRACT_VERSION, api.CONTRACT_MODULE, api.EXECUTION_PLAN_SCHEMA
            ),
            operations=api.supported_operations(),
            limits=dict(api.LIMITS),
        )

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

    def execute(self, scenario: Scenario, inputs: Mapping[str, bytes] | None = None, replays: int = 1) -> ExecuteResult:
        return api.execute(scenario, inputs or {}, replays)

    def close(self) -> None:
        return None


def make() -> ReferenceBackend:
    """Factory, so ``python:harness.backends.reference:make`` names the same backend."""
    return ReferenceBackend()
