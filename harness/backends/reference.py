"""The built-in reference implementation: each operation ``reference.api`` implements, plus ``describe``."""

from __future__ import annotations

import cProfile
import functools
import hashlib
import sys
from collections import OrderedDict
from collections.abc import Callable
from types import CodeType
from typing import Any, Final, Protocol

import orjson

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


#: Requests watched already, by operation and arguments: the functions their answer ran (None: it was refused).
_WATCHED: OrderedDict[bytes, frozenset[FunctionName] | None] = OrderedDict()
_WATCHED_ENTRIES: Final = 4096


def _request_key(operation: str, args: Any, kwargs: Any) -> bytes | None:
    """The request's identity (operation and arguments as canonical JSON, bytes as hex), or None without one."""
    try:
        text = orjson.dumps([operation, args, kwargs], default=_plain, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None
    return hashlib.sha256(text).digest()


def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": bytes(value).hex()}
    raise TypeError(f"{type(value).__name__} has no request key")


def _run_profiled(function: Callable[..., Any], args: Any, kwargs: Any) -> tuple[Any, frozenset[FunctionName]]:
    """``function(*args, **kwargs)`` with every memo bypassed, and the Python functions it ran."""
    profiler = cProfile.Profile(builtins=False)
    profiler.enable()
    try:
        with api.computed_directly():
            result = function(*args, **kwargs)
    finally:
        profiler.disable()
    ran = frozenset(
        (entry.code.co_filename, entry.code.co_qualname)
        for entry in profiler.getstats()
        if isinstance(entry.code, CodeType)
    )
    return result, ran


def _watched(function: Callable[..., Any], operation: str, tracer: CallTracer, args: Any, kwargs: Any) -> Any:
    """``function(*args, **kwargs)``; ``tracer.ran`` with the Python functions its answer was computed with.

    The answer is computed as any other; only an answer that is not a refusal (a refusal credits no function)
    is then computed again with every memo bypassed, watched, so what it ran is what a first computation runs.
    The functions are remembered by request: the same request (operation and arguments) credits the same
    functions whichever case asked it first, without being watched again. Another profiler already installed
    (a debugger or a profiling run) is left alone and nothing is recorded.
    """
    if sys.getprofile() is not None:
        return function(*args, **kwargs)
    key = _request_key(operation, args, kwargs)
    seen = key is not None and key in _WATCHED
    known = _WATCHED[key] if key is not None and seen else None
    if key is not None and seen:
        _WATCHED.move_to_end(key)
    try:
        result = function(*args, **kwargs)
    except api.VNextError:
        _remember(key, None)
        raise
    if not seen:
        _, known = _run_profiled(function, args, kwargs)
        _remember(key, known)
    if known is not None:
        tracer.ran(operation, known)
    return result


def _remember(key: bytes | None, ran: frozenset[FunctionName] | None) -> None:
    if key is None:
        return
    _WATCHED[key] = ran
    while len(_WATCHED) > _WATCHED_ENTRIES:
        _WATCHED.popitem(last=False)


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
