"""The built-in reference implementation: each operation ``reference.api`` implements, plus ``describe``."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any, Protocol

from harness.identity import suite_version
from harness.protocol.description import BackendDescription, ContractIdentity, Implementation
from reference import api

__all__ = ["CallTracer", "ErrorObserver", "FunctionName", "ReferenceImplementation", "make"]

#: Called with each contract error an operation raises (its traceback intact), before it is answered.
ErrorObserver = Callable[[api.VNextError], None]

#: A Python function by its source file and qualified name.
FunctionName = tuple[str, str]


class CallTracer(Protocol):
    """Watches which functions of the reference an operation's answer was computed with."""

    def wants(self, operation: str) -> bool:
        """Whether this call of ``operation`` is to be watched (watching costs several times the call)."""
        ...

    def ran(self, operation: str, functions: frozenset[FunctionName]) -> None:
        """A watched call of ``operation`` answered, having run ``functions`` (memoized results recomputed)."""
        ...


def _watched(function: Callable[..., Any], operation: str, tracer: CallTracer, args: Any, kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` with every Python function it calls recorded; ``tracer.ran`` on an answer.

    Another profiler already installed (a debugger or a profiling run) is left alone and nothing is recorded.
    """
    if sys.getprofile() is not None:
        return function(*args, **kwargs)
    codes: set[CodeType] = set()

    def record(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call":
            codes.add(frame.f_code)

    sys.setprofile(record)
    try:
        with api.computed_directly():
            result = function(*args, **kwargs)
    finally:
        sys.setprofile(None)
    tracer.ran(operation, frozenset((code.co_filename, code.co_qualname) for code in codes))
    return result


class ReferenceImplementation:
    """Serves ``reference.api``; ``describe`` lists what it implements; ``observer`` sees every refusal and
    ``tracer`` the functions each answer it asks for was computed with."""

    _observer: ErrorObserver | None = None
    _tracer: CallTracer | None = None

    def __init__(self, observer: ErrorObserver | None = None, tracer: CallTracer | None = None) -> None:
        self._observer = observer
        self._tracer = tracer

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
        observer, tracer = self._observer, self._tracer
        if observer is None and tracer is None:
            return function

        @functools.wraps(function)
        def observed(*args: Any, **kwargs: Any) -> Any:
            try:
                if tracer is not None and tracer.wants(name):
                    return _watched(function, name, tracer, args, kwargs)
                return function(*args, **kwargs)
            except api.VNextError as error:
                if observer is not None:
                    observer(error)
                raise

        return observed


def make() -> ReferenceImplementation:
    """Factory, so ``python:harness.backends.reference:make`` names the same backend."""
    return ReferenceImplementation()
