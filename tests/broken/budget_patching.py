"""A reference backend with one deliberate patch, active only while the backend answers.

Every broken backend of ``tests/broken/{budget,estimate,resolve}_*.py`` is a
``PatchedReference``: the reference backend whose calls run inside
``unittest.mock.patch.object(target, attribute, replacement)``. The patch is
undone after each call, so the process's reference stays intact between calls;
still, serve broken backends **out of process** (``vnext-conformance serve
--backend python:tests.broken.<module>:make``) so the suites' oracle never runs
while a patch is active.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar
from unittest import mock

from harness.protocol.description import BackendDescription
from reference.api import PreparedFamily, StepAnswer, WeightPlanSelection
from reference.runtime.result import ExecuteResult
from tests.broken.base import ReferenceBackend, Scenario

__all__ = ["PatchedReference"]

T = TypeVar("T")


class PatchedReference:
    """The reference backend answering under one patch; ``describe`` names the mutant."""

    def __init__(self, name: str, target: Any, attribute: str, replacement: Any) -> None:
        self._name = name
        self._target = target
        self._attribute = attribute
        self._replacement = replacement
        self._inner = ReferenceBackend()

    @contextmanager
    def _patched(self) -> Iterator[None]:
        with mock.patch.object(self._target, self._attribute, self._replacement):
            yield

    def _call(self, fn: Callable[[], T]) -> T:
        with self._patched():
            return fn()

    def describe(self) -> BackendDescription:
        base = self._inner.describe()
        implementation = dataclasses.replace(base.implementation, name=f"broken:{self._name}")
        return dataclasses.replace(base, implementation=implementation)

    def prepare_family(self, scenario: Scenario) -> PreparedFamily:
        return self._call(lambda: self._inner.prepare_family(scenario))

    def fingerprint_catalog(self, scenario: Scenario) -> str:
        return self._call(lambda: self._inner.fingerprint_catalog(scenario))

    def build_plan(self, scenario: Scenario) -> bytes:
        return self._call(lambda: self._inner.build_plan(scenario))

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        return self._call(lambda: self._inner.revalidate(scenario, wire))

    def select_weight_plan(self, scenario: Scenario) -> WeightPlanSelection:
        return self._call(lambda: self._inner.select_weight_plan(scenario))

    def revalidate_family(self, scenario: Scenario, wire: bytes) -> str:
        return self._call(lambda: self._inner.revalidate_family(scenario, wire))

    def compile_plan(self, scenario: Scenario, options: Any) -> bytes:
        return self._call(lambda: self._inner.compile_plan(scenario, options))

    def check_identity(self, identity_kind: str, value: str) -> None:
        self._call(lambda: self._inner.check_identity(identity_kind, value))

    def decode_catalog(self, wire: bytes) -> str:
        return self._call(lambda: self._inner.decode_catalog(wire))

    def lookup_engine_provider(self, scenario: Scenario, provider_id: str, required_version: Any) -> bytes:
        return self._call(lambda: self._inner.lookup_engine_provider(scenario, provider_id, required_version))

    def provider_compatibility(self, scenario: Scenario, request: Any) -> bytes:
        return self._call(lambda: self._inner.provider_compatibility(scenario, request))

    def execute(self, scenario: Scenario, inputs: Mapping[str, bytes] | None = None, replays: int = 1) -> ExecuteResult:
        return self._call(lambda: self._inner.execute(scenario, inputs, replays))

    def device_runtime_script(self, scenario: Scenario, script: Any) -> tuple[StepAnswer, ...]:
        return self._call(lambda: self._inner.device_runtime_script(scenario, script))

    def close(self) -> None:
        self._inner.close()
