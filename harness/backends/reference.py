"""The built-in reference implementation: each operation ``reference.api`` implements, plus ``describe``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from harness.identity import suite_version
from harness.protocol.description import BackendDescription, ContractIdentity, Implementation
from reference import api

__all__ = ["ErrorObserver", "ReferenceImplementation", "make"]

#: Called with each contract error an operation raises (its traceback intact), before it is answered.
ErrorObserver = Callable[[api.VNextError], None]


class ReferenceImplementation:
    """Serves ``reference.api``; ``describe`` lists what it implements; ``observer`` sees every refusal."""

    _observer: ErrorObserver | None = None

    def __init__(self, observer: ErrorObserver | None = None) -> None:
        self._observer = observer

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
        if name not in api.supported_operations():
            raise AttributeError(name)
        function: Callable[..., Any] = getattr(api, name)
        observer = self._observer
        if observer is None:
            return function

        @functools.wraps(function)
        def observed(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except api.VNextError as error:
                observer(error)
                raise

        return observed


def make() -> ReferenceImplementation:
    """Factory, so ``python:harness.backends.reference:make`` names the same backend."""
    return ReferenceImplementation()
