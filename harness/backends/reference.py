"""The built-in reference implementation: each operation ``reference.api`` implements, plus ``describe``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.identity import suite_version
from harness.protocol.description import BackendDescription, ContractIdentity, Implementation
from reference import api

__all__ = ["ReferenceImplementation", "make"]


class ReferenceImplementation:
    """Serves ``reference.api``; ``describe`` lists what it implements."""

    def describe(self) -> BackendDescription:
        return BackendDescription(
            implementation=Implementation(api.IMPLEMENTATION_NAME, suite_version(), api.IMPLEMENTATION_LANGUAGE),
            contract=ContractIdentity(
                api.CONTRACT_CRATE, api.CONTRACT_VERSION, api.CONTRACT_MODULE, api.EXECUTION_PLAN_SCHEMA
            ),
            operations=api.supported_operations(),
            limits=dict(api.LIMITS),
        )

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name in api.supported_operations():
            function: Callable[..., Any] = getattr(api, name)
            return function
        raise AttributeError(name)


def make() -> ReferenceImplementation:
    """Factory, so ``python:harness.backends.reference:make`` names the same backend."""
    return ReferenceImplementation()
