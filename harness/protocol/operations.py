# mypy: disable-error-code="empty-body"
# The methods of ``Operations`` are declarations: their bodies are never run.
"""Every protocol operation, declared once (harness/PROTOCOL.md §5).

``Operations`` is the typed face of the protocol. Each of its methods *is* one operation's
declaration: the method name is the operation name, its parameters (in order) are the request
``params``, the decorator gives their codecs, the result codec and the conformance level, and the
docstring is the operation's summary. Calling such a method on an instance sends the operation
through ``self.call``: connections to a backend and the suites' gated view of a backend subclass
``Operations``. A Python backend (``python:MODULE:FACTORY`` and the reference) implements methods
of the same names and parameters. Each operation's JSON Schema is
``schemas/protocol/operations/<name>.json`` (``$defs/params`` and ``$defs/result``).

Adding an operation is: one method here, its schema file, the reference's implementation in
``reference/api.py`` and the suite that checks it.
"""

from __future__ import annotations

import enum
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, ParamSpec, TypeVar

import orjson

from harness.protocol.codecs import (
    BytesMapParam,
    ChoiceParam,
    DescriptionResult,
    DocumentParam,
    EmptyResult,
    ExecuteResultCodec,
    Param,
    ProtocolError,
    RawJson,
    ResultCodec,
    ScenarioParam,
    Sha256Result,
    StepAnswersResult,
    StringParam,
    U32Param,
    WireAndFingerprintResult,
    WireParam,
    WireResult,
)
from harness.protocol.description import BackendDescription
from harness.protocol.envelope import Request
from reference.api import (
    COMPATIBILITY_REQUEST_CONTEXT,
    COMPILE_OPTIONS_CONTEXT,
    CONTRACT_VERSION_CONTEXT,
    DEVICE_RUNTIME_SCRIPT_CONTEXT,
    IDENTITY_KINDS,
    ExecuteResult,
    PreparedFamily,
    StepAnswer,
    WeightPlanSelection,
)
from reference.errors import VNextError

__all__ = ["OPERATIONS", "Level", "Operation", "Operations", "Scenario", "operation"]

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

Scenario = Mapping[str, Any] | RawJson
"""A scenario document: a JSON object (or its exact text) defined by the planning layers."""


class Level(enum.IntEnum):
    """Conformance levels: a backend reaches a level when it implements every operation of it."""

    DESCRIBE = 0
    """describe only: the handshake and self-description (a protocol smoke test, never a conformance claim)."""
    PLANNING = 1
    """describe, build_plan and revalidate: plans are built, hashed and revalidated."""
    FULL = 2
    """every planning operation."""
    RUNTIME = 3
    """full, plus executing plans on a device runtime."""

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Level:
        """The level named ``text`` (``planning``, ``full``, ``runtime``); ``ValueError`` otherwise."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown level {text!r}; use one of {[level.label for level in cls]}") from None

    def operations(self) -> tuple[str, ...]:
        """Every operation a backend at this level implements."""
        return tuple(name for name, declared in _DECLARED.items() if declared.level <= self)

    @classmethod
    def reached(cls, implemented: Iterable[str]) -> Level | None:
        """The highest level whose operations are all in ``implemented`` (``None``: not even planning)."""
        have = set(implemented)
        best = None
        for level in cls:
            if set(level.operations()) <= have:
                best = level
        return best


@dataclass(frozen=True, eq=False, slots=True)
class Operation(Generic[R_co]):
    """One operation's declaration."""

    name: str
    summary: str
    params: tuple[Param[Any], ...]
    result: ResultCodec[R_co]
    level: Level
    signature: inspect.Signature
    mandatory: bool = False
    """Every backend implements it (the handshake carries its result)."""
    probe: tuple[Any, ...] = ()
    """Arguments no valid input matches: an implementation must answer them with a contract error."""

    @property
    def schema(self) -> str:
        """The operation's schema document (``$defs/params``, ``$defs/result``)."""
        return f"protocol/operations/{self.name}.json"

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[Any, ...]:
        """The call's arguments in parameter order, defaults applied (``TypeError`` when they do not fit)."""
        bound = self.signature.bind(None, *args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.values())[1:]

    def encode_params(self, args: Sequence[Any]) -> dict[str, Any]:
        """The request ``params`` object for arguments in parameter order."""
        return {param.name: param.encode(value) for param, value in zip(self.params, args, strict=True)}

    def decode_params(self, request: Request) -> tuple[Any, ...]:
        """Typed arguments from a request's params members, in parameter order.

        ``ProtocolError`` when the members are not exactly the parameters or one is malformed;
        a contract error of a parameter's own decoding (a malformed scenario) propagates.
        """
        names = [param.name for param in self.params]
        if request.keys != frozenset(names):
            got = sorted(request.keys)[:8]
            raise ProtocolError(f"{self.name} params must have exactly the keys {sorted(names)}, got {got}")
        return tuple(
            param.decode(request.params.raw(param.name), request.params.depth(param.name)) for param in self.params
        )

    def check_params(self, params: Mapping[str, Any]) -> None:
        """``ProtocolError`` unless the params object (parsed JSON) has this operation's shape.

        A parameter whose own decoding is a contract error (an over-cap scenario) has the right
        shape: the contract error is what the backend must answer.
        """
        names = [param.name for param in self.params]
        if not isinstance(params, Mapping) or set(params) != set(names):
            raise ProtocolError(f"{self.name} params must have exactly the keys {sorted(names)}")
        for param in self.params:
            try:
                param.decode(orjson.dumps(params[param.name]))
            except VNextError:
                continue
            except orjson.JSONEncodeError as exc:
                raise ProtocolError(f"{self.name} params.{param.name}: {exc}") from None

    def encode_result(self, value: Any) -> dict[str, Any]:
        try:
            return self.result.encode(value)
        except ProtocolError as exc:
            raise ProtocolError(f"{self.name} result: {exc}") from None

    def decode_result(self, raw: Any) -> R_co:
        try:
            return self.result.decode(raw)
        except ProtocolError as exc:
            raise ProtocolError(f"{self.name} result: {exc}") from None


_DECLARED: dict[str, Operation[Any]] = {}


def operation(
    *params: Param[Any],
    result: ResultCodec[R],
    level: Level,
    mandatory: bool = False,
    probe: tuple[Any, ...] = ({},),
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare the decorated method of ``Operations`` as a protocol operation (``probe``: arguments that
    must be refused, by default the empty scenario)."""

    def declare(method: Callable[P, R]) -> Callable[P, R]:
        name = method.__name__
        signature = inspect.signature(method)
        if [p.name for p in params] != list(signature.parameters)[1:]:
            raise TypeError(f"{name}: the declared params do not match the method's parameters")
        refused = () if mandatory else probe
        if not mandatory and len(refused) != len(params):
            raise TypeError(f"{name}: the probe does not give every parameter")
        summary = inspect.cleandoc(method.__doc__ or "").split("\n\n")[0].replace("\n", " ")
        declared = Operation(name, summary, params, result, level, signature, mandatory, refused)
        _DECLARED[name] = declared

        @functools.wraps(method)
        def send(*args: P.args, **kwargs: P.kwargs) -> R:
            self, rest = args[0], args[1:]
            return self.call(declared, declared.bind(rest, kwargs))  # type: ignore[attr-defined,no-any-return]

        send.operation = declared  # type: ignore[attr-defined]
        return send

    return declare


class Operations:
    """The protocol's operations; subclasses route every call through ``call``."""

    def call(self, operation: Operation[Any], args: tuple[Any, ...]) -> Any:
        """Send ``operation`` with ``args`` (in parameter order); its typed result."""
        raise NotImplementedError

    @operation(result=DescriptionResult(), level=Level.DESCRIBE, mandatory=True)
    def describe(self) -> BackendDescription:
        """Implementation and contract identity, the operations implemented, the limits enforced (§5.1)."""
        ...

    @operation(ScenarioParam(), result=WireAndFingerprintResult(PreparedFamily), level=Level.FULL)
    def prepare_family(self, scenario: Scenario) -> PreparedFamily:
        """Prepare the scenario's model family (02 §6-§7): the PreparedModelFamily wire and ``fingerprint()``."""
        ...

    @operation(ScenarioParam(), result=Sha256Result("fingerprint"), level=Level.FULL)
    def fingerprint_catalog(self, scenario: Scenario) -> str:
        """``CapabilityCatalog::fingerprint()`` (direct mode, 01 §3.5) of the scenario's catalog."""
        ...

    @operation(ScenarioParam(), result=WireResult(), level=Level.PLANNING)
    def build_plan(self, scenario: Scenario) -> bytes:
        """``ExecutionPlan::build`` then ``to_json``: the exact plan wire bytes (05 §3, §8)."""
        ...

    @operation(
        ScenarioParam(),
        WireParam("wire_base64"),
        result=Sha256Result("plan_hash"),
        level=Level.PLANNING,
        probe=({}, b""),
    )
    def revalidate(self, scenario: Scenario, wire_base64: bytes) -> str:
        """Decode the wire untrusted, then revalidate it against the scenario (05 §9): the plan hash."""
        ...

    @operation(ScenarioParam(), result=WireAndFingerprintResult(WeightPlanSelection), level=Level.FULL)
    def select_weight_plan(self, scenario: Scenario) -> WeightPlanSelection:
        """``WeightMaterializerRegistry::select_exact`` (05 §10.4): the ExecutionWeightPlan wire and fingerprint."""
        ...

    @operation(
        ScenarioParam(), WireParam("wire_base64"), result=Sha256Result("fingerprint"), level=Level.FULL, probe=({}, b"")
    )
    def revalidate_family(self, scenario: Scenario, wire_base64: bytes) -> str:
        """Decode the wire as an untrusted PreparedModelFamily, then revalidate it against the scenario's
        family registry (02 §7.4-§7.5): the rebuilt family's ``fingerprint()``."""
        ...

    @operation(
        ScenarioParam(),
        DocumentParam("options", COMPILE_OPTIONS_CONTEXT),
        result=WireResult(),
        level=Level.FULL,
        probe=({}, {}),
    )
    def compile_plan(self, scenario: Scenario, options: Mapping[str, Any] | RawJson) -> bytes:
        """``ProgramPlanCompiler::compile`` of the scenario's program with the options (05 §7.13), then
        ``to_json``: the exact plan wire bytes."""
        ...

    @operation(
        ChoiceParam("identity_kind", tuple(IDENTITY_KINDS)),
        StringParam("value"),
        result=EmptyResult(),
        level=Level.FULL,
        probe=("node", ""),
    )
    def check_identity(self, identity_kind: str, value: str) -> None:
        """Build the identity of that ``InvalidIdentity.kind`` from the string (01 §1.1-§1.3): ``{}``, or
        its InvalidIdentity."""
        ...

    # ------------------------------------------------------------ catalog-side operations (decision H-30)

    @operation(WireParam("wire_base64"), result=Sha256Result("fingerprint"), level=Level.FULL, probe=(b"",))
    def decode_catalog(self, wire_base64: bytes) -> str:
        """Decode an untrusted map-shaped CapabilityCatalog wire (03 §11.1, ``from_maps`` steps a-i): the
        decoded catalog's ``fingerprint()``."""
        ...

    @operation(
        ScenarioParam(),
        StringParam("provider_id"),
        DocumentParam("required_version", CONTRACT_VERSION_CONTEXT),
        result=WireResult(),
        level=Level.FULL,
        probe=({}, "", {}),
    )
    def lookup_engine_provider(
        self, scenario: Scenario, provider_id: str, required_version: Mapping[str, Any] | RawJson
    ) -> bytes:
        """``CapabilityCatalog::engine_provider(id, required_version)`` on the scenario's catalog (03 §11.4):
        the engine provider descriptor's JSON bytes."""
        ...

    @operation(
        ScenarioParam(),
        DocumentParam("request", COMPATIBILITY_REQUEST_CONTEXT),
        result=WireResult(),
        level=Level.FULL,
        probe=({}, {}),
    )
    def provider_compatibility(self, scenario: Scenario, request: Mapping[str, Any] | RawJson) -> bytes:
        """``CapabilityCatalog::provider_compatibility(request)`` on the scenario's catalog (03 §11.4): the
        ProviderCompatibilityReport's JSON bytes."""
        ...

    # ------------------------------------------------------------ runtime operations

    @operation(
        ScenarioParam(),
        BytesMapParam("inputs"),
        U32Param("replays"),
        result=ExecuteResultCodec(),
        level=Level.RUNTIME,
        probe=({}, {}, 1),
    )
    def execute(self, scenario: Scenario, inputs: Mapping[str, bytes] | None = None, replays: int = 1) -> ExecuteResult:
        """Run the scenario's plan on the backend's device runtime ``replays`` times (§5.2)."""
        ...

    @operation(
        ScenarioParam(),
        DocumentParam("script", DEVICE_RUNTIME_SCRIPT_CONTEXT),
        result=StepAnswersResult(),
        level=Level.RUNTIME,
        probe=({}, []),
    )
    def device_runtime_script(self, scenario: Scenario, script: Sequence[Any] | RawJson) -> tuple[StepAnswer, ...]:
        """Run a scripted DeviceRuntime call sequence (03 §13.1, §13.3) on the runtime of the scenario's catalog
        device: each step's value or contract error (§5.9)."""
        ...


#: Every operation, in protocol order.
OPERATIONS: Final[Mapping[str, Operation[Any]]] = dict(_DECLARED)
